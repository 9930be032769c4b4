// Package numfmt owns how numbers read in every table, chart label and
// progress line: three significant figures with thousands separators, so
// that the same value is spelled the same way everywhere.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Sig formats x to three significant figures, with thousands separators
// for large values: 123456 → "123,000", 1.23456 → "1.23", 0.0123 → "0.0123".
func Sig(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
	if a := math.Abs(r); a >= 1e15 || a < 1e-9 {
		// No measurement here is that large or small: a forged or broken
		// value reads as a number, not as 309 digits.
		return strconv.FormatFloat(r, 'e', 2, 64)
	}
	decimals := 2 - int(math.Floor(math.Log10(math.Abs(r))))
	if decimals > 0 {
		return strconv.FormatFloat(r, 'f', decimals, 64)
	}
	return Thousands(strconv.FormatFloat(r, 'f', 0, 64))
}

// Thousands puts a comma between every three digits of an integer's text:
// "1234567" → "1,234,567".
func Thousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// Count formats a whole number with thousands separators: 10231 → "10,231".
func Count(n int64) string { return Thousands(strconv.FormatInt(n, 10)) }

// Percent formats a fraction as a percentage to three significant figures,
// without trailing zeros: 0.487 → "48.7%", 0.001 → "0.1%", 0.5 → "50%".
func Percent(f float64) string {
	s := Sig(100 * f)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + "%"
}
