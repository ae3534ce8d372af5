package validators

import (
	"math"
	"regexp"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// ImageCitation is one "@imageN" in a prompt that cites the Nth reference image.
type ImageCitation struct {
	// Text is the citation as written, such as "@image2".
	Text string
	// N is the number cited; a number too large to read is math.MaxInt.
	N int
}

var imageCitationPattern = regexp.MustCompile(`@image([0-9]+)`)

// ImageCitations returns the citations of a prompt. A citation is a word of its
// own: "@imageN" counts unless it is part of an e-mail address or a longer word,
// that is, unless it follows a letter, a digit or one of "_.+-" (the end of an
// address's local part), or is followed by a letter, a digit, "_", or by "." or
// "-" and then a letter or digit (the rest of a domain name). So "(@image1)",
// "@image1," and "@image1." are citations; "me@image1.com" and "@image1x" are not.
func ImageCitations(prompt string) []ImageCitation {
	var out []ImageCitation
	for _, m := range imageCitationPattern.FindAllStringSubmatchIndex(prompt, -1) {
		if !standsAlone(prompt, m[0], m[1]) {
			continue
		}
		n, err := strconv.Atoi(prompt[m[2]:m[3]])
		if err != nil {
			n = math.MaxInt
		}
		out = append(out, ImageCitation{Text: prompt[m[0]:m[1]], N: n})
	}
	return out
}

func standsAlone(s string, start, end int) bool {
	if before, _ := utf8.DecodeLastRuneInString(s[:start]); start > 0 && (isWordRune(before) || before == '.' || before == '+' || before == '-') {
		return false
	}
	after, size := utf8.DecodeRuneInString(s[end:])
	if end == len(s) {
		return true
	}
	if isWordRune(after) {
		return false
	}
	if after == '.' || after == '-' {
		next, _ := utf8.DecodeRuneInString(s[end+size:])
		return end+size == len(s) || !unicode.IsLetter(next) && !unicode.IsDigit(next)
	}
	return true
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }
