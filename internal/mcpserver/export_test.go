package mcpserver

// ScrubBody is scrubBody, for the tests of package mcpserver_test.
var ScrubBody = scrubBody

// ScrubRefusals is scrubRefusals, for the tests of package mcpserver_test.
var ScrubRefusals = scrubRefusals
