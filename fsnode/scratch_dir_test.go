package fsnode

import (
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// The one rule of editors' temporaries: the names vim, nano, emacs and
// temp-then-rename savers make beside meta.json, and vim's write test.
func TestIsEditorTemp(t *testing.T) {
	for name, want := range map[string]bool{
		".meta.json.swp":        true, // vim, nano
		".meta.json.swx":        true, // vim's probe of its swap name
		"meta.json~":            true, // backups
		"#meta.json#":           true, // emacs auto-save
		".#meta.json":           true, // emacs lock
		"meta.json.tmp":         true,
		"meta.json.vsctmp":      true, // VS Code
		".meta.json.4815162342": true, // atomic-write libraries
		"meta.json___jb_tmp___": true, // JetBrains
		"4913":                  true, // vim's write test
		"5036":                  true, // vim's next try: 4913 + 123
		"4914":                  false,
		"04913":                 false,
		"notes.md":              false,
		"hostname":              false,
		".hidden":               false,
		"#notes#":               false,
		"sedAb12Cd":             false, // sed -i: refused, documented
		".goutputstream-ABC123": false,
		"transcript.md~":        false, // a generated file is not edited
		"xmeta.json":            false,
	} {
		if got := isEditorTemp(name); got != want {
			t.Errorf("isEditorTemp(%q) = %v, want %v", name, got, want)
		}
	}
}

// An editor's temporary made before its session went to the trash is
// read-only there, as the rest of the folder: no open to write, no
// truncate.
func TestScratchFileInTrash(t *testing.T) {
	st, s := testSession(t)
	f := newScratchFile(New(st, Options{}).fsys, s)
	if _, _, errno := f.Open(owner, syscall.O_WRONLY); errno != 0 {
		t.Fatalf("open to write: %v", errno)
	}
	if err := st.Trash("s"); err != nil {
		t.Fatal(err)
	}
	if _, _, errno := f.Open(owner, syscall.O_WRONLY); errno != syscall.EROFS {
		t.Errorf("open to write in the trash: %v, want EROFS", errno)
	}
	if _, _, errno := f.Open(owner, syscall.O_RDONLY|syscall.O_TRUNC); errno != syscall.EROFS {
		t.Errorf("open with O_TRUNC in the trash: %v, want EROFS", errno)
	}
	in := &fuse.SetAttrIn{SetAttrInCommon: fuse.SetAttrInCommon{Valid: fuse.FATTR_SIZE}}
	if errno := f.Setattr(owner, nil, in, &fuse.AttrOut{}); errno != syscall.EROFS {
		t.Errorf("truncate in the trash: %v, want EROFS", errno)
	}
	if _, _, errno := f.Open(owner, syscall.O_RDONLY); errno != 0 {
		t.Errorf("open to read in the trash: %v", errno)
	}
}
