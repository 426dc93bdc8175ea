package pii

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestCategories(t *testing.T) {
	got := Categories()
	want := []string{
		"behavioral", "biometric", "contact", "credential", "demographic_protected", "financial",
		"genetic", "government_id", "health", "location", "online_identifier", "payment_card",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Categories() = %v, want %v", got, want)
	}
	got[0] = "mutated"
	if Categories()[0] != "behavioral" {
		t.Fatal("Categories returned shared storage")
	}
}

func TestValid(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"contact", true},
		{"payment_card", true},
		{"demographic_protected", true},
		{"online_identifier", true},
		{"Contact", false},
		{" contact", false},
		{"", false},
		{"pii", false},
		{"payment-card", false},
	}
	for _, tt := range tests {
		if got := Valid(tt.name); got != tt.want {
			t.Errorf("Valid(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRefusalFloor(t *testing.T) {
	got := RefusalFloor()
	if !slices.Equal(got, []string{"credential", "government_id", "payment_card"}) {
		t.Fatalf("RefusalFloor() = %v", got)
	}
	got[0] = "health"
	if RefusalFloor()[0] != "credential" {
		t.Fatal("RefusalFloor returned shared storage")
	}
}

func TestParseList(t *testing.T) {
	tests := []struct {
		csv     string
		want    []string
		unknown []string
	}{
		{"", nil, nil},
		{" , ,", nil, nil},
		{"health", []string{"health"}, nil},
		{"payment_card, contact ,health", []string{"contact", "health", "payment_card"}, nil},
		{"health,health,genetic", []string{"genetic", "health"}, nil},
		{"helth", nil, []string{"helth"}},
		{"contact,Health,ssn", nil, []string{"Health", "ssn"}},
	}
	for _, tt := range tests {
		got, err := ParseList(tt.csv)
		if tt.unknown == nil {
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("ParseList(%q) = %v, %v; want %v", tt.csv, got, err, tt.want)
			}
			continue
		}
		var ue *UnknownCategoryError
		if !errors.As(err, &ue) {
			t.Fatalf("ParseList(%q) error = %v, want *UnknownCategoryError", tt.csv, err)
		}
		if !slices.Equal(ue.Unknown, tt.unknown) || ue.Input != tt.csv {
			t.Errorf("ParseList(%q) unknown = %v (input %q), want %v", tt.csv, ue.Unknown, ue.Input, tt.unknown)
		}
		msg := err.Error()
		for _, name := range append(Categories(), tt.unknown...) {
			if !strings.Contains(msg, name) {
				t.Errorf("ParseList(%q) error %q does not mention %q", tt.csv, msg, name)
			}
		}
	}
}

func TestBlockList(t *testing.T) {
	got, err := BlockList("health, credential")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"credential", "government_id", "health", "payment_card"}; !slices.Equal(got, want) {
		t.Errorf("BlockList = %v, want %v", got, want)
	}
	if got, err := BlockList(""); err != nil || !slices.Equal(got, RefusalFloor()) {
		t.Errorf("BlockList(\"\") = %v, %v; want the floor", got, err)
	}
	if _, err := BlockList("credentials"); err == nil {
		t.Error("BlockList accepted an unknown name")
	}
}
