//go:build !linux

package pgcluster

// MemoryDir is "" (the default temporary directory) where no memory file
// system is known.
func MemoryDir() string { return "" }
