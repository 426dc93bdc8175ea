package pii

// luhn reports whether a string of ASCII digits passes the Luhn check.
func luhn(d string) bool {
	sum, double := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if double {
			if v *= 2; v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return sum%10 == 0
}

// ssnValid applies the SSA issuance rules: area 000, 666 and 900-999, group
// 00 and serial 0000 are never assigned.
func ssnValid(area, grp, serial string) bool {
	return area != "000" && area != "666" && area[0] != '9' && grp != "00" && serial != "0000"
}

// abaValid checks the routing-number checksum 3-7-1.
func abaValid(d string) bool {
	if len(d) != 9 {
		return false
	}
	w := [3]int{3, 7, 1}
	sum := 0
	for i := range 9 {
		sum += int(d[i]-'0') * w[i%3]
	}
	return sum%10 == 0 && d != "000000000"
}

// ibanMod97 reports whether a compact, upper-case IBAN has a valid checksum
// (ISO 7064 mod 97-10 over the BBAN followed by country and check digits).
func ibanMod97(iban string) bool {
	if len(iban) < 5 {
		return false
	}
	rearranged := iban[4:] + iban[:4]
	rem := 0
	for i := 0; i < len(rearranged); i++ {
		c := rearranged[i]
		switch {
		case isDigit(c):
			rem = (rem*10 + int(c-'0')) % 97
		case isUpper(c):
			rem = (rem*100 + int(c-'A') + 10) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// ibanLengths is the IBAN length per country from the ISO 13616 registry;
// knowing the length lets a scanner stop exactly at the end of the number.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
	"BH": 22, "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24,
	"DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
	"FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27,
	"GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
	"IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20,
	"LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20,
	"MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
	"PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
	"SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
	"SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}
