//go:build !race

package render

// raceDetector is set when the tests run with the race detector.
const raceDetector = false
