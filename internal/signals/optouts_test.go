package signals

import (
	"testing"

	"github.com/robotsext/robotsext/internal/tdmrep"
)

func TestTDMRep(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    tdmrep.Declaration
		want Statement
		ok   bool
	}{
		{tdmrep.Declaration{}, Statement{}, false},
		{tdmrep.Declaration{Policy: "https://p.example/"}, Statement{}, false},
		{tdmrep.Declaration{Reservation: tdmrep.Reserved, From: tdmrep.TechniqueFile, Rule: 3}, stmt("train-ai", No, SourceTDMRepFile, 3), true},
		{tdmrep.Declaration{Reservation: tdmrep.NotReserved, From: tdmrep.TechniqueFile}, stmt("train-ai", Yes, SourceTDMRepFile, 0), true},
		{tdmrep.Declaration{Reservation: tdmrep.Reserved, From: tdmrep.TechniqueHeader}, stmt("train-ai", No, SourceTDMRepHeader, 0), true},
		{tdmrep.Declaration{Reservation: tdmrep.Reserved, From: tdmrep.TechniqueMeta}, stmt("train-ai", No, SourceTDMRepMeta, 0), true},
		{tdmrep.Declaration{Reservation: tdmrep.Reserved}, Statement{}, false}, // no technique: not a real declaration
	}
	for _, tc := range tests {
		got, ok := TDMRep(tc.d)
		if got != tc.want || ok != tc.ok {
			t.Errorf("TDMRep(%+v) = %v, %v; want %v, %v", tc.d, got, ok, tc.want, tc.ok)
		}
	}
}

func TestNoAI(t *testing.T) {
	t.Parallel()
	if got := NoAI(SourceXRobotsTag); got != stmt("train-ai", No, SourceXRobotsTag, 0) {
		t.Errorf("NoAI = %v", got)
	}
	tests := []struct {
		contentType string
		image       bool
	}{
		{"image/png", true},
		{"IMAGE/JPEG; q=1", true},
		{" image/webp", true},
		{"image/", false},
		{"text/html; charset=utf-8", false},
		{"", false},
		{"application/octet-stream", false},
		{"imagex/png", false},
	}
	for _, tc := range tests {
		got, ok := NoImageAI(SourceMetaRobots, tc.contentType)
		if ok != tc.image || ok && got != stmt("train-ai", No, SourceMetaRobots, 0) {
			t.Errorf("NoImageAI(%q) = %v, %v", tc.contentType, got, ok)
		}
	}
}
