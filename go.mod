module github.com/sessfs/sessfs

go 1.26.8

require (
	github.com/gofrs/flock v0.13.1
	github.com/google/uuid v1.6.0
	github.com/spf13/pflag v1.1.0
	golang.org/x/sys v0.47.0
)

require github.com/hanwen/go-fuse/v2 v2.12.1

require github.com/yuin/goldmark v1.8.7
