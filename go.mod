module github.com/sessfs/sessfs

go 1.26.8

require (
	github.com/gofrs/flock v0.13.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hanwen/go-fuse/v2 v2.12.1 // indirect
	github.com/spf13/pflag v1.1.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
