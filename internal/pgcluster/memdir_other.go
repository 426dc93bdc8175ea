//go:build !linux

package pgcluster

// memoryDir is "" (the default temporary directory) where no memory file
// system is known.
func memoryDir() string { return "" }
