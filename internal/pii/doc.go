// Package pii finds personal data in free text and names it with a closed,
// regulator-derived taxonomy of twelve categories.
//
// Detection is heuristic but validated: card numbers must pass Luhn, IBANs
// mod-97, routing numbers the ABA checksum, SSNs the issuance rules, JWT
// headers must decode to JSON with an "alg" member, and weaker signals such
// as passport numbers or medical conditions count only next to a context
// word. Every detector runs in time linear in the input (RE2 regular
// expressions and single-pass scanners), so hostile input cannot stall a
// caller, and no input, including invalid UTF-8 or NUL bytes, panics.
//
// Find and Classify serve page content, where a false tag costs more than a
// miss. FindForRedaction serves search queries that are about to be stored:
// the same scanners, run in a query mode that also accepts the looser forms
// people type (national phone numbers, Unicode addresses, labelled SSNs,
// short bearer tokens).
package pii
