package titles

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of a prompt, with where it stands.
type token struct {
	text     string // as written
	lower    string
	sentence int  // index of the sentence it belongs to
	first    bool // first word of its sentence
	breakAft bool // punctuation (other than an apostrophe or hyphen) follows it
}

// isWordRune says what a word is made of; apostrophes, hyphens, dots and plus signs
// inside a word keep it whole ("don't", "step-by-step", "Node.js", "C++").
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func isJoiner(r rune) bool {
	return r == '\'' || r == '’' || r == '-' || r == '.' || r == '&'
}

// tokenize splits text into words, marking sentence starts and punctuation breaks.
func tokenize(text string) []token {
	var toks []token
	sentence, newSentence := 0, true
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			if len(toks) > 0 && !unicode.IsSpace(r) {
				toks[len(toks)-1].breakAft = true
			}
			if r == '.' || r == '!' || r == '?' || r == '\n' || r == ';' || r == ':' {
				if !newSentence {
					sentence++
				}
				newSentence = true
			}
			i += size
			continue
		}
		j := i + size
		for j < len(text) {
			r2, s2 := utf8.DecodeRuneInString(text[j:])
			if isWordRune(r2) {
				j += s2
				continue
			}
			// A joiner stays inside the word only between word characters.
			if isJoiner(r2) && j+s2 < len(text) {
				r3, _ := utf8.DecodeRuneInString(text[j+s2:])
				if isWordRune(r3) {
					j += s2
					continue
				}
			}
			break
		}
		// Trailing plus signs belong to names: "C++", "Disney+".
		for k := 0; k < 2 && j < len(text) && text[j] == '+'; k++ {
			j++
		}
		w := text[i:j]
		toks = append(toks, token{text: w, lower: strings.ToLower(w), sentence: sentence, first: newSentence})
		newSentence = false
		i = j
	}
	return toks
}

// wordsOf returns the lower-case words of s as tokenize sees them.
func wordsOf(s string) []string {
	toks := tokenize(s)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.lower
	}
	return out
}

func isNumber(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits++
		case r == '.' || r == ',':
		default:
			return false
		}
	}
	return digits > 0
}

func isYear(s string) bool {
	if len(s) != 4 || !isNumber(s) {
		return false
	}
	return (s[0] == '1' && s[1] == '9') || (s[0] == '2' && s[1] == '0')
}

// isCapitalised reports whether a word starts with an upper-case letter or is mixed case
// like "iPhone".
func isCapitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	if unicode.IsUpper(r) {
		return true
	}
	return hasInnerUpper(w)
}

func hasInnerUpper(w string) bool {
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// smallWords stay lower case inside a title.
var smallWords = set("a an the and or but nor of in on at to for by vs with from as per via into")

// titleWord capitalises one word of a title: brand spellings win, mixed-case words and
// acronyms are kept, small words stay lower case unless they open or close the title.
// A letter whose capital lower-cases to another letter ("µ" -> "Μ" -> "μ") is left alone,
// so the title still contains the prompt's words.
func titleWord(w string, edge bool) string {
	t := casedWord(w, edge)
	if strings.ToLower(t) != strings.ToLower(w) {
		return w
	}
	return t
}

func casedWord(w string, edge bool) string {
	lw := strings.ToLower(w)
	if b, ok := brands[lw]; ok {
		return b
	}
	if hasInnerUpper(w) || isAllUpper(w) {
		return w
	}
	if !edge && smallWords[lw] {
		return lw
	}
	// Hyphenated words capitalise each part: "Step-by-Step".
	parts := strings.Split(w, "-")
	for i, p := range parts {
		if i > 0 && smallWords[strings.ToLower(p)] && i < len(parts)-1 {
			continue
		}
		r, size := utf8.DecodeRuneInString(p)
		if size > 0 {
			parts[i] = string(unicode.ToTitle(r)) + p[size:]
		}
	}
	return strings.Join(parts, "-")
}

func isAllUpper(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			if !unicode.IsUpper(r) {
				return false
			}
			letters++
		}
	}
	return letters >= 2
}

// titleCase applies titleWord to every space-separated word of s.
func titleCase(s string) string {
	fs := strings.Fields(s)
	for i, f := range fs {
		// Punctuation around a word ("(Step", "Guide:") does not change its casing.
		lead := strings.IndexFunc(f, isWordRune)
		if lead < 0 {
			continue
		}
		trail := strings.LastIndexFunc(f, isWordRune)
		_, sz := utf8.DecodeRuneInString(f[trail:])
		core := f[lead : trail+sz]
		edge := i == 0 || i == len(fs)-1 || (i > 0 && (strings.HasSuffix(fs[i-1], ":") ||
			fs[i-1] == "–" || fs[i-1] == "-" || strings.HasSuffix(fs[i-1], "?")))
		fs[i] = f[:lead] + titleWord(core, edge) + f[trail+sz:]
	}
	return strings.Join(fs, " ")
}

// truncateWords cuts s to at most max bytes at a word boundary, never inside a word.
func truncateWords(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max+1], ' ')
	if cut <= 0 {
		return ""
	}
	return strings.TrimRight(s[:cut], " ,;:-–—")
}

// normalise reduces a title to lower-case words, for comparing titles.
func normalise(s string) string { return strings.Join(wordsOf(s), " ") }

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// brands fixes the spelling of names that prompts often write in lower case.
var brands = func() map[string]string {
	m := map[string]string{}
	for _, b := range strings.Fields(`iPhone iPad iPadOS iOS macOS MacBook AirPods YouTube TikTok Instagram
		Facebook WhatsApp LinkedIn PlayStation PS4 PS5 Xbox Nintendo Minecraft Fortnite Roblox
		GTA ChatGPT OpenAI AI GPU CPU SSD PC RTX AMD Intel Nvidia NVIDIA Tesla SpaceX NASA DIY ASMR
		Android Google Samsung Galaxy Pixel Apple Microsoft Windows Linux Excel PowerPoint JavaScript
		TypeScript Python Golang Rust Kubernetes Docker AWS USA UK EU NBA NFL FIFA UFC F1 MrBeast
		Netflix Spotify Amazon IKEA LEGO BMW Porsche Ferrari Toyota Honda Airbnb McDonald's
		Starbucks Disney Marvel DC Pokémon Pokemon Zelda Mario Valorant TV VR AR SEO ETF ETFs HIIT
		Bitcoin Ethereum NYC Reddit Twitch Discord Photoshop Lightroom Blender Unity GoPro DJI
		Shopify Etsy Costco Walmart Lidl Aldi OLED 4K 8K HDR USB-C Wi-Fi Bluetooth`) {
		m[strings.ToLower(b)] = b
	}
	return m
}()
