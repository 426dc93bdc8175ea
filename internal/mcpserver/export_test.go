package mcpserver

// ScrubBody is scrubBody, for the tests of package mcpserver_test.
var ScrubBody = scrubBody
