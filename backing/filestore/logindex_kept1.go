package filestore

import (
	"encoding/binary"
	"hash/crc32"
)

// Layout 1 of the kept message index (logindex_kept.go), which sessfs
// wrote before layout 2: read so that a store's indexes outlive the
// upgrade (a long log would otherwise be scanned whole at its first
// read), and written anew in layout 2 once read. Its record is the same
// but for the messages, varints before the bad lines:
//
//	from, to, first, lines, count, then per message: the bytes before
//	it since the previous one's end (or from), and its length << 4 |
//	its kind; then the count of bad lines and per bad line: the bytes
//	since the previous one (or from), its line number and length; then
//	the tail CRC and the record's CRC, as in layout 2.

// decodeRecord1 is decodeRecord for a record of layout 1.
func decodeRecord1(data []byte, seed uint32, msgs []msgRef) (r keptRecord, _ []msgRef, n int, ok bool) {
	p := 0
	next := func() uint64 {
		if !ok {
			return 0
		}
		v, k := binary.Uvarint(data[p:])
		if k <= 0 {
			ok = false
			return 0
		}
		p += k
		return v
	}
	ok = true
	from, to, first, lines, count := next(), next(), next(), next(), next()
	if !ok || from > to || to > 1<<62 || count > uint64(len(data)) {
		return r, msgs, 0, false
	}
	r = keptRecord{from: int64(from), to: int64(to), first: int(first), lines: int(lines), count: int(count)}
	start := len(msgs)
	at := r.from
	for range count {
		gap, nk := next(), next()
		if !ok || nk>>kindBitsLen > 1<<32-1 || gap > to {
			return r, msgs[:start], 0, false
		}
		m := msgRef{off: at + int64(gap), n: uint32(nk >> kindBitsLen), Kind: kindOfBits(uint8(nk & (1<<kindBitsLen - 1)))}
		if m.end() > r.to {
			return r, msgs[:start], 0, false
		}
		msgs = append(msgs, m)
		at = m.end()
	}
	nbad := next()
	if !ok || nbad > uint64(len(data)) {
		return r, msgs[:start], 0, false
	}
	at = r.from
	for range nbad {
		gap, line, n := next(), next(), next()
		if !ok || gap > to || n > to {
			return r, msgs[:start], 0, false
		}
		at += int64(gap)
		if at+int64(n) >= r.to {
			return r, msgs[:start], 0, false
		}
		r.bad = append(r.bad, keptBad{off: at, line: int(line), n: int(n)})
	}
	if !ok || p+8 > len(data) {
		return r, msgs[:start], 0, false
	}
	r.tail = binary.LittleEndian.Uint32(data[p:])
	p += 4
	if crc32.Update(seed, crc32.IEEETable, data[:p]) != binary.LittleEndian.Uint32(data[p:]) {
		return r, msgs[:start], 0, false
	}
	return r, msgs, p + 4, true
}
