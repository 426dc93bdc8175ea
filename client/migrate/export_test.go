package migrate

// CheckTrigram is checkTrigram, for the external tests.
var CheckTrigram = checkTrigram
