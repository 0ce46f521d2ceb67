package fsnode

import (
	"reflect"
	"testing"
)

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		"/plain":           "/plain",
		`/a\040b`:          "/a b",
		`/tab\011nl\012`:   "/tab\tnl\n",
		`/back\134slash`:   `/back\slash`,
		`/not\0octal\9999`: `/not\0octal\9999`,
		`/short\04`:        `/short\04`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	data := `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
90 22 0:50 / /tmp/mnt\040one rw,nosuid,nodev,relatime shared:40 master:3 - fuse.sessfs /srv/my\040store rw,user_id=0
91 22 0:51 / /tmp/t rw - tmpfs tmpfs rw,size=1024k
garbage line
`
	want := []Mount{
		{Dir: "/", FSType: "ext4", Source: "/dev/sda1"},
		{Dir: "/tmp/mnt one", FSType: "fuse.sessfs", Source: "/srv/my store"},
		{Dir: "/tmp/t", FSType: "tmpfs", Source: "tmpfs"},
	}
	if got := parseMountTable(data); !reflect.DeepEqual(got, want) {
		t.Errorf("parseMountTable:\n got %q\nwant %q", got, want)
	}
}
