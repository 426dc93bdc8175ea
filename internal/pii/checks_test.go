package pii

import "testing"

func TestLuhn(t *testing.T) {
	tests := []struct {
		digits string
		want   bool
	}{
		{"4111111111111111", true},
		{"5555555555554444", true},
		{"378282246310005", true},
		{"6011111111111117", true},
		{"4111111111111112", false},
		{"9780306406157", false},
		{"0", true},
		{"18", true},
		{"19", false},
	}
	for _, tt := range tests {
		if got := luhn(tt.digits); got != tt.want {
			t.Errorf("luhn(%s) = %v, want %v", tt.digits, got, tt.want)
		}
	}
}

func TestSSNValid(t *testing.T) {
	tests := []struct {
		area, group, serial string
		want                bool
	}{
		{"123", "45", "6789", true},
		{"078", "05", "1120", true},
		{"000", "45", "6789", false},
		{"666", "45", "6789", false},
		{"900", "45", "6789", false},
		{"999", "45", "6789", false},
		{"123", "00", "6789", false},
		{"123", "45", "0000", false},
	}
	for _, tt := range tests {
		if got := ssnValid(tt.area, tt.group, tt.serial); got != tt.want {
			t.Errorf("ssnValid(%s-%s-%s) = %v, want %v", tt.area, tt.group, tt.serial, got, tt.want)
		}
	}
}

func TestABAValid(t *testing.T) {
	tests := []struct {
		digits string
		want   bool
	}{
		{"021000021", true},
		{"011000015", true},
		{"123456789", false},
		{"000000000", false},
		{"02100002", false},
	}
	for _, tt := range tests {
		if got := abaValid(tt.digits); got != tt.want {
			t.Errorf("abaValid(%s) = %v, want %v", tt.digits, got, tt.want)
		}
	}
}

func TestIBANMod97(t *testing.T) {
	tests := []struct {
		iban string
		want bool
	}{
		{"GB82WEST12345698765432", true},
		{"DE89370400440532013000", true},
		{"FR1420041010050500013M02606", true},
		{"GB83WEST12345698765432", false},
		{"DE89370400440532013001", false},
		{"GB82west12345698765432", false},
		{"GB8", false},
	}
	for _, tt := range tests {
		if got := ibanMod97(tt.iban); got != tt.want {
			t.Errorf("ibanMod97(%s) = %v, want %v", tt.iban, got, tt.want)
		}
	}
}
