package main

import (
	"fmt"
	"runtime"
)

func runVersion(args []string) int {
	c := newCLI("version", "", "Prints the version of sessfs, the store format it reads and writes, and\nthe Go version and platform it was built for.")
	if _, code, ok := c.parse(args, 0, 0); !ok {
		return code
	}
	fmt.Printf("sessfs %s (store format %d, %s %s/%s)\n", version, storeFormat, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}
