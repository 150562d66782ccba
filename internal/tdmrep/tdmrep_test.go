package tdmrep

import (
	"strings"
	"testing"
	"unsafe"
)

func TestParseReservation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		values []string
		want   Reservation
	}{
		{nil, Unset},
		{[]string{""}, Unset},
		{[]string{"1"}, Reserved},
		{[]string{"0"}, NotReserved},
		{[]string{" 1\t"}, Reserved},
		{[]string{"yes"}, Unset},
		{[]string{"true"}, Unset},
		{[]string{"01"}, Unset},
		{[]string{"1.0"}, Unset},
		{[]string{"?1"}, Unset},
		{[]string{`"1"`}, Unset},
		{[]string{"1 0"}, Unset},
		// Several field lines, or a list: the most restrictive value.
		{[]string{"0", "1"}, Reserved},
		{[]string{"1", "0"}, Reserved},
		{[]string{"0, 1"}, Reserved},
		{[]string{"0", "0"}, NotReserved},
		{[]string{"x, 0"}, NotReserved},
		{[]string{"x", "1"}, Reserved},
		{[]string{",,"}, Unset},
	}
	for _, tc := range tests {
		if got := ParseReservation(tc.values...); got != tc.want {
			t.Errorf("ParseReservation(%q) = %v; want %v", tc.values, got, tc.want)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		values []string
		want   string
	}{
		{nil, ""},
		{[]string{"https://p.example/policy.json"}, "https://p.example/policy.json"},
		{[]string{"  https://p.example/a,b  "}, "https://p.example/a,b"},
		{[]string{"", " ", "https://p.example/second"}, "https://p.example/second"},
		{[]string{"https://p.example/first", "https://p.example/second"}, "https://p.example/first"},
		{[]string{strings.Repeat("a", MaxPolicy)}, strings.Repeat("a", MaxPolicy)},
		{[]string{strings.Repeat("a", MaxPolicy+1)}, ""},
		{[]string{"https://p.example/\x1b[2J"}, ""},
		{[]string{"https://p.example/\x7f"}, ""},
		{[]string{"https://p.example/caf\u00e9"}, "https://p.example/caf\u00e9"},
	}
	for _, tc := range tests {
		if got := ParsePolicy(tc.values...); got != tc.want {
			t.Errorf("ParsePolicy(%q) = %q; want %q", tc.values, got, tc.want)
		}
	}
}

func TestFromHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		res, pol []string
		want     Declaration
	}{
		{nil, nil, Declaration{}},
		{[]string{"1"}, nil, Declaration{Reservation: Reserved, From: TechniqueHeader}},
		{[]string{"1"}, []string{"https://p.example/"}, Declaration{Reservation: Reserved, Policy: "https://p.example/", From: TechniqueHeader}},
		{[]string{"0"}, []string{"https://p.example/"}, Declaration{Reservation: NotReserved, Policy: "https://p.example/", From: TechniqueHeader}},
		{[]string{"maybe"}, []string{"https://p.example/"}, Declaration{Policy: "https://p.example/"}},
	}
	for _, tc := range tests {
		if got := FromHeader(tc.res, tc.pol); got != tc.want {
			t.Errorf("FromHeader(%q, %q) = %+v; want %+v", tc.res, tc.pol, got, tc.want)
		}
	}
}

// The report's HTML example, and the tags of a head fed one by one as a
// head scanner finds them.
func TestAddMeta(t *testing.T) {
	t.Parallel()
	type tag struct{ name, content string }
	tests := []struct {
		name string
		tags []tag
		want Declaration
	}{
		{"report example", []tag{{"viewport", "width=device-width"}, {"tdm-reservation", "1"}, {"tdm-policy", "https://provider.example/policies/p.json"}},
			Declaration{Reservation: Reserved, Policy: "https://provider.example/policies/p.json", From: TechniqueMeta}},
		{"names case-insensitive", []tag{{"TDM-Reservation", "1"}, {"Tdm-Policy", "https://p.example/"}},
			Declaration{Reservation: Reserved, Policy: "https://p.example/", From: TechniqueMeta}},
		{"zero", []tag{{"tdm-reservation", "0"}}, Declaration{Reservation: NotReserved, From: TechniqueMeta}},
		{"bad value", []tag{{"tdm-reservation", "no"}}, Declaration{}},
		{"two tags: 1 wins", []tag{{"tdm-reservation", "1"}, {"tdm-reservation", "0"}}, Declaration{Reservation: Reserved, From: TechniqueMeta}},
		{"two tags: 1 wins, in either order", []tag{{"tdm-reservation", "0"}, {"tdm-reservation", "1"}}, Declaration{Reservation: Reserved, From: TechniqueMeta}},
		{"first policy kept", []tag{{"tdm-policy", ""}, {"tdm-policy", "https://a.example/"}, {"tdm-policy", "https://b.example/"}},
			Declaration{Policy: "https://a.example/"}},
		{"other names", []tag{{"robots", "noai"}, {"tdm", "1"}, {"tdm:reservation", "1"}}, Declaration{}},
	}
	for _, tc := range tests {
		var d Declaration
		for _, tg := range tc.tags {
			ours := strings.EqualFold(tg.name, NameReservation) || strings.EqualFold(tg.name, NamePolicy)
			if got := d.AddMeta(tg.name, tg.content); got != ours {
				t.Errorf("%s: AddMeta(%q) = %v", tc.name, tg.name, got)
			}
		}
		if d != tc.want {
			t.Errorf("%s: %+v; want %+v", tc.name, d, tc.want)
		}
	}
}

// AddMeta keeps nothing of the strings it is given: a head scanner's
// strings share the page's memory.
func TestAddMetaCopies(t *testing.T) {
	t.Parallel()
	page := []byte("https://p.example/policy")
	var d Declaration
	d.AddMeta("tdm-policy", unsafe.String(&page[0], len(page)))
	copy(page, "XXXXXXXXXXXXXXXXXXXXXXXX")
	if d.Policy != "https://p.example/policy" {
		t.Errorf("Policy = %q after the page changed", d.Policy)
	}
}

// The report's processing order: the file, then the header, then the meta
// tags, each superseding what came before for the properties it states.
func TestOver(t *testing.T) {
	t.Parallel()
	file := Declaration{Reservation: Reserved, Policy: "https://file.example/", From: TechniqueFile, Rule: 2}
	header0 := Declaration{Reservation: NotReserved, From: TechniqueHeader}
	header1 := Declaration{Reservation: Reserved, Policy: "https://header.example/", From: TechniqueHeader}
	policyOnly := Declaration{Policy: "https://meta.example/"}
	meta0 := Declaration{Reservation: NotReserved, From: TechniqueMeta}
	tests := []struct {
		name string
		got  Declaration
		want Declaration
	}{
		{"header supersedes the file", header0.Over(file), Declaration{Reservation: NotReserved, Policy: "https://file.example/", From: TechniqueHeader}},
		{"silent header keeps the file", Declaration{}.Over(file), file},
		{"meta supersedes the header", meta0.Over(header1.Over(Declaration{})), Declaration{Reservation: NotReserved, Policy: "https://header.example/", From: TechniqueMeta}},
		{"policy alone keeps the reservation", policyOnly.Over(file), Declaration{Reservation: Reserved, Policy: "https://meta.example/", From: TechniqueFile, Rule: 2}},
		{"all three", meta0.Over(header1.Over(file)), Declaration{Reservation: NotReserved, Policy: "https://header.example/", From: TechniqueMeta}},
		{"nothing over nothing", Declaration{}.Over(Declaration{}), Declaration{}},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: %+v; want %+v", tc.name, tc.got, tc.want)
		}
	}
}

func TestStrings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ got, want string }{
		{Reserved.String(), "1"},
		{NotReserved.String(), "0"},
		{Unset.String(), "unset"},
		{TechniqueFile.String(), "tdmrep.json"},
		{TechniqueHeader.String(), "tdm-reservation header"},
		{TechniqueMeta.String(), "tdm-reservation meta"},
		{TechniqueNone.String(), "none"},
		{Issue{Index: 3, Reason: "x"}.String(), "rule 3: x"},
	} {
		if tc.got != tc.want {
			t.Errorf("%q; want %q", tc.got, tc.want)
		}
	}
}
