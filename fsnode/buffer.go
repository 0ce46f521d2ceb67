package fsnode

import "syscall"

// buffer is a small file's bytes held in memory and written at offsets:
// meta.json's pending edit, a scratch file. The caller holds its lock.
type buffer struct {
	data []byte
	max  int64
}

func (b *buffer) writeAt(p []byte, off int64) syscall.Errno {
	end := off + int64(len(p))
	if end > b.max {
		return syscall.EFBIG
	}
	if end > int64(len(b.data)) {
		b.data = append(b.data, make([]byte, end-int64(len(b.data)))...)
	}
	copy(b.data[off:], p)
	return 0
}

func (b *buffer) truncate(size int64) syscall.Errno {
	if size > b.max {
		return syscall.EFBIG
	}
	if size <= int64(len(b.data)) {
		b.data = b.data[:size]
	} else {
		b.data = append(b.data, make([]byte, size-int64(len(b.data)))...)
	}
	return 0
}

// read copies up to n bytes from off: the caller's lock is released
// before the kernel gets them.
func (b *buffer) read(off int64, n int) []byte {
	return append([]byte(nil), slice(b.data, off, n)...)
}

// saved is what a change of a buffer overwrote, to put back if the
// change is refused.
type saved struct {
	off  int64
	old  []byte
	size int
}

// save keeps what a write of n bytes at off, or a truncation to off (n
// < 0: everything from off), would overwrite.
func (b *buffer) save(off int64, n int) saved {
	end := int64(len(b.data))
	if n >= 0 {
		end = min(end, off+int64(n))
	}
	s := saved{off: off, size: len(b.data)}
	if off < end {
		s.old = append([]byte(nil), b.data[off:end]...)
	}
	return s
}

// restore puts back what save kept.
func (b *buffer) restore(s saved) {
	if len(b.data) < s.size {
		b.data = append(b.data, make([]byte, s.size-len(b.data))...)
	}
	b.data = b.data[:s.size]
	copy(b.data[s.off:], s.old)
}
