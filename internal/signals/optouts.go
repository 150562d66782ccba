package signals

// This file turns the opt-outs that are not preference Dictionaries into
// statements: TDMRep's tdm-reservation and the noai and noimageai robots
// directives. Each states train-ai and nothing else; why, for each, is
// said where it is mapped.

import (
	"strings"

	"github.com/robotsext/robotsext/internal/tdmrep"
)

// TDMRep returns the statement a TDMRep declaration makes (the report's
// file, header and meta tags already laid over one another, see
// tdmrep.Declaration.Over): reserved (1) is train-ai=n, not reserved (0)
// train-ai=y; unset states nothing (false).
//
// Only train-ai: the reservation is the opt-out of Article 4 of the CDSM
// Directive from text and data mining, which the AI Act (Art. 53(1)(c))
// makes providers of general-purpose models honour when training. It does
// not speak of search: reading it as "search=n" would drop from an index
// every site that opted out of mining, which no search engine does and
// the report does not ask. Nor of ai-input (a page fed to a model's answer
// at the time of use): whether that is mining is disputed, and the report
// defines no purposes; a crawler that wants the cautious reading can
// declare train-ai as well.
func TDMRep(d tdmrep.Declaration) (Statement, bool) {
	s := Statement{Key: KeyTrainAI}
	switch d.Reservation {
	case tdmrep.Reserved:
		s.Preference = No
	case tdmrep.NotReserved:
		s.Preference = Yes
	default:
		return Statement{}, false
	}
	switch d.From {
	case tdmrep.TechniqueFile:
		s.Source, s.Line = SourceTDMRepFile, d.Rule
	case tdmrep.TechniqueHeader:
		s.Source = SourceTDMRepHeader
	case tdmrep.TechniqueMeta:
		s.Source = SourceTDMRepMeta
	default:
		return Statement{}, false
	}
	return s, true
}

// NoAI returns the statement the noai robots directive makes, read from
// src (SourceXRobotsTag or SourceMetaRobots): train-ai=n. DeviantArt,
// which introduced it, says content carrying it is not authorised for the
// datasets AI models are trained on; it says nothing of search or of
// ai-input.
func NoAI(src Source) Statement {
	return Statement{Key: KeyTrainAI, Preference: No, Source: src}
}

// NoImageAI returns the statement the noimageai directive makes for a
// response of media type contentType, read from src: train-ai=n when the
// response is an image (image/*), nothing (false) otherwise.
//
// noimageai asks that a page's images stay out of AI datasets while its
// text may go in (DeviantArt puts it on an artwork's page, and sends noai
// with the image file itself). On the image it is noai. On the page it
// refuses nothing of the page: reading it as noai would override the
// site's deliberate choice of the narrower directive. Its images are
// refused where they can be told apart, by the caller: a request made from
// the page whose response turns out to be an image.
func NoImageAI(src Source, contentType string) (Statement, bool) {
	if !IsImage(contentType) {
		return Statement{}, false
	}
	return NoAI(src), true
}

// IsImage reports whether a Content-Type names an image: media type
// image/*, case-insensitive, parameters ignored.
func IsImage(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.TrimLeft(mt, " \t")
	return len(mt) > len("image/") && strings.EqualFold(mt[:len("image/")], "image/")
}
