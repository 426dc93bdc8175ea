package pii

import (
	"slices"
	"strings"
)

// The closed taxonomy. Names are part of the on-disk audit format, so they
// never change spelling.
const (
	Behavioral           = "behavioral"
	Biometric            = "biometric"
	Contact              = "contact"
	Credential           = "credential"
	DemographicProtected = "demographic_protected"
	Financial            = "financial"
	Genetic              = "genetic"
	GovernmentID         = "government_id"
	Health               = "health"
	Location             = "location"
	OnlineIdentifier     = "online_identifier"
	PaymentCard          = "payment_card"
)

// categories is sorted so Categories and error messages are stable.
var categories = [...]string{
	Behavioral, Biometric, Contact, Credential, DemographicProtected, Financial,
	Genetic, GovernmentID, Health, Location, OnlineIdentifier, PaymentCard,
}

// Categories returns the twelve category names, sorted. The slice is a copy.
func Categories() []string {
	return slices.Clone(categories[:])
}

// Valid reports whether name is exactly one of the twelve category names.
func Valid(name string) bool {
	_, ok := slices.BinarySearch(categories[:], name)
	return ok
}

// RefusalFloor returns the categories that are always refused, whatever the
// operator configures: leaking any of them is catastrophic and irreversible.
func RefusalFloor() []string {
	return []string{Credential, GovernmentID, PaymentCard}
}

// UnknownCategoryError reports names in a category list that are not in the
// taxonomy. Callers treat it as fatal: a typo must never silently weaken a
// block list.
type UnknownCategoryError struct {
	Input   string   // the list as given
	Unknown []string // the offending names, in input order
}

func (e *UnknownCategoryError) Error() string {
	quoted := make([]string, len(e.Unknown))
	for i, u := range e.Unknown {
		quoted[i] = `"` + u + `"`
	}
	noun := "category"
	if len(e.Unknown) > 1 {
		noun = "categories"
	}
	return "unknown PII " + noun + " " + strings.Join(quoted, ", ") +
		` in "` + e.Input + `": use a comma-separated list of ` +
		strings.Join(categories[:], ", ")
}

// ParseList parses a comma-separated list of category names. Surrounding
// spaces and empty items are ignored; names are case-sensitive. The result is
// sorted and free of duplicates. Any unknown name yields an
// *UnknownCategoryError that lists every valid name.
func ParseList(csv string) ([]string, error) {
	var out, unknown []string
	for _, item := range strings.Split(csv, ",") {
		name := strings.TrimSpace(item)
		switch {
		case name == "":
		case Valid(name):
			out = append(out, name)
		default:
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return nil, &UnknownCategoryError{Input: csv, Unknown: unknown}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// BlockList returns the refusal floor widened by the categories in csv, as
// accepted by ParseList. It is what a --pii-block flag resolves to.
func BlockList(csv string) ([]string, error) {
	extra, err := ParseList(csv)
	if err != nil {
		return nil, err
	}
	out := append(RefusalFloor(), extra...)
	slices.Sort(out)
	return slices.Compact(out), nil
}
