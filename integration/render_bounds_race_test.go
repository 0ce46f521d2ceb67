//go:build race

package integration

// raceDetector is set when the tests run with the race detector, which
// slows Go code 5 to 10 times.
const raceDetector = true
