package termsafe

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestLineAndText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, line, text string
	}{
		{"plain ASCII", "Disallow: /private", "Disallow: /private", "Disallow: /private"},
		{"plain UTF-8", "Disallow: /café/日本", "Disallow: /café/日本", "Disallow: /café/日本"},
		{"backslash as is", `/a\x1b`, `/a\x1b`, `/a\x1b`},
		{"window title OSC", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
		{"clear screen CSI", "\x1b[2Jall records purged", `\x1b[2Jall records purged`, `\x1b[2Jall records purged`},
		{"NUL and DEL", "a\x00b\x7fc", `a\x00b\x7fc`, `a\x00b\x7fc`},
		{"C1 CSI as UTF-8", "a\u009b2Jb", `a\u009b2Jb`, `a\u009b2Jb`},
		{"C1 CSI as a lone byte", "a\x9b2Jb", `a\x9b2Jb`, `a\x9b2Jb`},
		{"invalid UTF-8", "\xff\xfe", `\xff\xfe`, `\xff\xfe`},
		{"right-to-left override", "/doc\u202etxt.exe", `/doc\u202etxt.exe`, `/doc\u202etxt.exe`},
		{"bidi isolates and marks", "\u2066a\u2069\u200e\u200f\u061c", `\u2066a\u2069\u200e\u200f\u061c`, `\u2066a\u2069\u200e\u200f\u061c`},
		{"zero width and BOM", "a\u200bb\ufeffc\u00ad", `a\u200bb\ufeffc\u00ad`, `a\u200bb\ufeffc\u00ad`},
		{"tag characters", "a\U000E0041b", `a\U000e0041b`, `a\U000e0041b`},
		{"line and paragraph separators", "a\u2028b\u2029c", `a\u2028b\u2029c`, `a\u2028b\u2029c`},
		{"line breaks and tabs", "User-agent: *\n\tDisallow: /\n", `User-agent: *\n\tDisallow: /\n`, "User-agent: *\n\tDisallow: /\n"},
		{"CRLF", "a\r\nb\r\n", `a\r\nb\r\n`, "a\nb\n"},
		{"lone CR overwrites", "real\rfake", `real\rfake`, `real\rfake`},
		{"CR at the end", "a\r", `a\r`, `a\r`},
		{"empty", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Line(tt.in); got != tt.line {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
			}
			if got := Text(tt.in); got != tt.text {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.text)
			}
			if got, want := Safe(tt.in), tt.line == tt.in; got != want {
				t.Errorf("Safe(%q) = %v, want %v", tt.in, got, want)
			}
		})
	}
}

// TestLineNeverLeavesControls checks every code point of the planes that
// hold controls and format characters, and every byte: nothing Line returns
// holds a byte below 0x20, DEL, a C1 control or a format character.
func TestLineNeverLeavesControls(t *testing.T) {
	t.Parallel()
	for r := rune(0); r < 0x30000; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		if out := Line(string(r)); !Safe(out) {
			t.Fatalf("Line(%U) = %q is not safe", r, out)
		}
		if out := Text(string(r)); !Safe(out) && out != "\n" && out != "\t" {
			t.Fatalf("Text(%U) = %q is not safe", r, out)
		}
	}
	for c := 0; c < 256; c++ {
		if out := Line(string([]byte{byte(c)})); !Safe(out) {
			t.Fatalf("Line(byte %#x) = %q is not safe", c, out)
		}
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string // the encoding of {"v": in} after JSON
	}{
		{"plain", "/a/b", `{"v":"/a/b"}`},
		{"C0 already escaped by encoding/json", "\x1b[2J\x07", `{"v":"\u001b[2J\u0007"}`},
		{"DEL", "a\x7fb", `{"v":"a\u007fb"}`},
		{"C1", "a\u009b2J", `{"v":"a\u009b2J"}`},
		{"right-to-left override", "a\u202eb", `{"v":"a\u202eb"}`},
		{"tag character", "a\U000E0041", `{"v":"a\udb40\udc41"}`},
		{"invalid UTF-8 as encoding/json writes it", "a\xffb", `{"v":"a\ufffdb"}`},
		{"line separator", "a\u2028b", `{"v":"a\u2028b"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := json.NewEncoder(&buf).Encode(map[string]string{"v": tt.in}); err != nil {
				t.Fatal(err)
			}
			got := JSON(buf.Bytes())
			if string(got) != tt.want+"\n" {
				t.Fatalf("JSON = %q, want %q", got, tt.want+"\n")
			}
			var back map[string]string
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("not valid JSON any more: %v", err)
			}
			var orig map[string]string
			json.Unmarshal(buf.Bytes(), &orig)
			if back["v"] != orig["v"] {
				t.Fatalf("decoded %q, want %q (the value must not change)", back["v"], orig["v"])
			}
			if !Safe(string(bytes.TrimSuffix(got, []byte("\n")))) {
				t.Fatalf("JSON output %q still holds an unsafe character", got)
			}
		})
	}
}

func TestJSONKeepsIndentation(t *testing.T) {
	t.Parallel()
	js, err := json.MarshalIndent(map[string]string{"a": "x\u202ey"}, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(js)
	want := "{\n\t\"a\": \"x\\u202ey\"\n}"
	if string(got) != want {
		t.Fatalf("JSON = %q, want %q", got, want)
	}
}
