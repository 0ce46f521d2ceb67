// Package mounttest holds the mount helpers that integration's tests and
// the benchmark (integration/bench) share, so that each rule about mounts
// is written once:
//
//   - which folders are mount points (MountPoints, IsMountPoint), from the
//     mount table the sessfs command reads too (fsnode.MountTable);
//   - taking an in-process FUSE mount down, retrying while the kernel
//     still holds files of it open, and detaching what will not go
//     (Unmount, ForceUnmount).
//
// It is test support, imported by nothing the product builds.
package mounttest
