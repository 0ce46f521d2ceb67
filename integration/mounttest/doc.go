// Package mounttest holds the mount helpers that integration's tests and
// the benchmark (integration/bench) share, so that each rule about mounts
// is written once:
//
//   - reading this mount namespace's mount table (/proc/self/mountinfo),
//     with its octal escapes undone (Table, MountPoints, IsMountPoint,
//     Unescape);
//   - taking an in-process FUSE mount down, retrying while the kernel
//     still holds files of it open, and detaching what will not go
//     (Unmount, ForceUnmount).
//
// It is test support, imported by nothing the product builds. The sessfs
// command reads the mount table on its own (cmd/sessfs/mounts.go): that is
// product code, and stays there.
package mounttest
