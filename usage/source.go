// Package usage holds the type that says where an AI usage preference
// was stated: Source, one value per mechanism (a Content-Usage or
// Content-Signal line of robots.txt or response header, TDMRep's
// tdmrep.json, header or meta tag, noai in an X-Robots-Tag header or a
// robots meta tag).
//
// The root package robotsext reports usage preferences (robotsext.Usage,
// robotsext.UsageStatement) and names this type as its own
// (robotsext.UsageSource is usage.Source), as os.FileMode is
// io/fs.FileMode: this package is where it reads in full. It imports
// nothing of the module.
package usage

// Source says which mechanism made a statement of a usage preference,
// and where. Each mechanism states its own preference for a URL; a
// robotsext.Usage keeps each one's statement, and the one in force for a
// key is the most restrictive of them. There are ten values, so that a
// Source is one decimal digit in an encoding of statements.
type Source uint8

const (
	// SourceNone: no statement was found.
	SourceNone Source = iota
	// SourceContentUsage: a Content-Usage line of robots.txt
	// (draft-ietf-aipref-attach); the statement's Line is its line.
	SourceContentUsage
	// SourceContentSignal: a Content-Signal line of robots.txt; the
	// statement's Line is its line.
	SourceContentSignal
	// SourceContentUsageHeader: the page's Content-Usage response header.
	SourceContentUsageHeader
	// SourceContentSignalHeader: the page's Content-Signal response
	// header.
	SourceContentSignalHeader
	// SourceTDMRepFile: a rule of the origin's /.well-known/tdmrep.json
	// (TDMRep); the statement's Line is the rule's index in the file's
	// array, from 0.
	SourceTDMRepFile
	// SourceTDMRepHeader: the page's tdm-reservation response header.
	SourceTDMRepHeader
	// SourceTDMRepMeta: a <meta name="tdm-reservation"> tag of the page.
	SourceTDMRepMeta
	// SourceXRobotsTag: noai (or, on an image, noimageai) in an
	// X-Robots-Tag header for the crawler.
	SourceXRobotsTag
	// SourceMetaRobots: noai or noimageai in a robots meta tag for the
	// crawler.
	SourceMetaRobots
)

// NumSources is the number of Source values, SourceNone included.
const NumSources = int(SourceMetaRobots) + 1

// String names the source as a report shows it: "Content-Usage line",
// "Content-Signal header", "tdmrep.json", "X-Robots-Tag", "meta robots"
// and so on; "none" for SourceNone and any value not defined.
func (s Source) String() string {
	switch s {
	case SourceContentUsage:
		return "Content-Usage line"
	case SourceContentSignal:
		return "Content-Signal line"
	case SourceContentUsageHeader:
		return "Content-Usage header"
	case SourceContentSignalHeader:
		return "Content-Signal header"
	case SourceTDMRepFile:
		return "tdmrep.json"
	case SourceTDMRepHeader:
		return "tdm-reservation header"
	case SourceTDMRepMeta:
		return "tdm-reservation meta"
	case SourceXRobotsTag:
		return "X-Robots-Tag"
	case SourceMetaRobots:
		return "meta robots"
	}
	return "none"
}
