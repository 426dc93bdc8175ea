package longmemeval

import "testing"

// CloneScratch is cloneScratch for the tests of package longmemeval_test: a
// keyword-only scratch brain retrieving by method.
func CloneScratch(t testing.TB, method string) *Scratch { return cloneScratch(t, true, method) }
