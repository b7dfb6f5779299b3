package builtin

import (
	"image/color"
	"strings"
)

// motif names a background decoration drawn over the gradient.
type motif int

const (
	motifBokeh motif = iota
	motifWaves
	motifBurst
	motifBars
	motifGrid
	motifStars
	motifStripes
	motifMountains
	motifRings
	motifChevrons
	motifDrips
	motifCount
)

// theme is a palette and motif chosen by the words of a prompt.
type theme struct {
	name   string
	words  []string
	top    color.RGBA // gradient start
	bottom color.RGBA // gradient end
	accent color.RGBA // shapes and highlighted headline words
	second color.RGBA // secondary shapes
	motif  motif
}

// themes is ordered: when two themes score equally the earlier wins, so the result never
// depends on map iteration.
var themes = []theme{
	{"ocean", []string{"ocean", "sea", "water", "wave", "waves", "beach", "surf", "surfing", "swim", "swimming", "underwater", "fish", "boat", "sail", "island", "lake", "river", "rain"},
		hexRGB(0x03306b), hexRGB(0x0a8fc4), hexRGB(0x3ff0ff), hexRGB(0x7fd8ff), motifWaves},
	{"fire", []string{"fire", "hot", "burn", "burning", "flame", "flames", "spicy", "heat", "explosion", "explode", "lava", "volcano", "danger", "angry", "rage", "insane", "crazy"},
		hexRGB(0x3a0500), hexRGB(0xd93a00), hexRGB(0xffc21a), hexRGB(0xff6a00), motifBurst},
	{"money", []string{"money", "finance", "financial", "invest", "investing", "investment", "stock", "stocks", "crypto", "bitcoin", "rich", "wealth", "dollar", "dollars", "profit", "income", "budget", "cash", "business", "market", "salary", "passive", "trading"},
		hexRGB(0x032b16), hexRGB(0x0b7a3b), hexRGB(0x6dff8a), hexRGB(0xf5d142), motifBars},
	{"tech", []string{"tech", "technology", "code", "coding", "programming", "program", "software", "computer", "ai", "robot", "developer", "app", "python", "javascript", "golang", "linux", "data", "hack", "hacking", "cyber", "chip", "gadget", "iphone", "phone", "review"},
		hexRGB(0x05080f), hexRGB(0x0d2340), hexRGB(0x19e3ff), hexRGB(0x7a5cff), motifGrid},
	{"space", []string{"space", "galaxy", "star", "stars", "planet", "planets", "universe", "nasa", "rocket", "moon", "mars", "astronaut", "cosmic", "alien", "aliens", "orbit", "night"},
		hexRGB(0x020312), hexRGB(0x1b0f3d), hexRGB(0xb98cff), hexRGB(0xffffff), motifStars},
	{"gaming", []string{"gaming", "game", "games", "gamer", "minecraft", "fortnite", "esports", "console", "playstation", "xbox", "nintendo", "boss", "level", "speedrun", "stream", "win", "victory", "battle"},
		hexRGB(0x12002b), hexRGB(0x3d0066), hexRGB(0x00ffa3), hexRGB(0xff2fd6), motifChevrons},
	{"food", []string{"food", "recipe", "recipes", "cook", "cooking", "kitchen", "pizza", "burger", "cake", "baking", "bake", "chef", "dinner", "lunch", "breakfast", "eat", "eating", "delicious", "taste", "coffee", "chocolate", "pasta"},
		hexRGB(0x5a1a05), hexRGB(0xe07b1f), hexRGB(0xffe08a), hexRGB(0xff9a3c), motifBokeh},
	{"nature", []string{"nature", "forest", "tree", "trees", "garden", "gardening", "plant", "plants", "green", "hiking", "hike", "mountain", "mountains", "camping", "wild", "wildlife", "animal", "animals", "eco", "outdoor", "outdoors", "spring"},
		hexRGB(0x0b2e12), hexRGB(0x3f8f2a), hexRGB(0xd4ff5a), hexRGB(0x8fd14f), motifMountains},
	{"fitness", []string{"fitness", "workout", "gym", "exercise", "muscle", "muscles", "training", "run", "running", "marathon", "yoga", "abs", "cardio", "strength", "diet", "weight", "sport", "sports", "football", "soccer", "basketball"},
		hexRGB(0x101010), hexRGB(0xb3001b), hexRGB(0xffe600), hexRGB(0xff3b3b), motifStripes},
	{"music", []string{"music", "song", "songs", "guitar", "piano", "drum", "drums", "beat", "beats", "album", "concert", "band", "sing", "singing", "rap", "dj", "remix", "playlist", "lyrics"},
		hexRGB(0x14001f), hexRGB(0x6a0dad), hexRGB(0xff4fd8), hexRGB(0x4fc3ff), motifRings},
	{"travel", []string{"travel", "trip", "vacation", "holiday", "flight", "hotel", "tour", "journey", "adventure", "explore", "city", "paris", "tokyo", "japan", "italy", "road", "roadtrip", "abroad", "summer", "sun", "sunset"},
		hexRGB(0xff7e47), hexRGB(0x2b5fa8), hexRGB(0xffe66b), hexRGB(0xffffff), motifMountains},
	{"horror", []string{"horror", "scary", "creepy", "ghost", "ghosts", "haunted", "zombie", "zombies", "dark", "nightmare", "monster", "fear", "terror", "blood", "evil", "demon", "halloween", "mystery", "murder", "crime"},
		hexRGB(0x000000), hexRGB(0x3b0000), hexRGB(0xff1a1a), hexRGB(0x8a0000), motifDrips},
	{"love", []string{"love", "wedding", "romance", "romantic", "date", "dating", "relationship", "couple", "heart", "valentine", "beauty", "makeup", "fashion", "style"},
		hexRGB(0x5c0a3a), hexRGB(0xff5c8a), hexRGB(0xfff0f5), hexRGB(0xffb3c7), motifBokeh},
	{"education", []string{"learn", "learning", "study", "studying", "school", "college", "university", "exam", "math", "science", "history", "tutorial", "guide", "explained", "lesson", "course", "tips", "beginner", "beginners"},
		hexRGB(0x0d1b4c), hexRGB(0x2c6bd6), hexRGB(0xffd23f), hexRGB(0x9ec9ff), motifRings},
}

// pickTheme scores every theme by how many of the words it knows and returns the best,
// or ok=false when none matched.
func pickTheme(words []string) (theme, bool) {
	best, bestScore := -1, 0
	for i, t := range themes {
		s := 0
		for _, w := range words {
			for _, k := range t.words {
				if w == k || (len(k) > 4 && strings.HasPrefix(w, k)) {
					s++
					break
				}
			}
		}
		if s > bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 {
		return theme{}, false
	}
	return themes[best], true
}

// hashTheme builds a palette from a hash of the words, so unknown topics still get a
// distinct, harmonious two-tone gradient rather than one flat colour.
func hashTheme(words []string, seed uint64) theme {
	r := newRNG(hashStrings(seed, words...))
	hue := r.float() * 360
	spread := r.rangef(25, 70)
	if r.intn(2) == 0 {
		spread = -spread
	}
	return theme{
		name:   "custom",
		top:    hsv(hue, r.rangef(0.6, 0.9), r.rangef(0.12, 0.3)),
		bottom: hsv(hue+spread, r.rangef(0.6, 0.95), r.rangef(0.5, 0.8)),
		accent: hsv(hue+180, r.rangef(0.55, 0.85), 1),
		second: hsv(hue+spread*2, 0.5, 1),
		motif:  motif(r.intn(int(motifCount))),
	}
}

// hsv converts hue (degrees), saturation and value to RGB.
func hsv(h, s, v float64) color.RGBA {
	for h < 0 {
		h += 360
	}
	for h >= 360 {
		h -= 360
	}
	c := v * s
	x := c * (1 - abs(modf(h/60, 2)-1))
	m := v - c
	var r, g, b float64
	switch int(h / 60) {
	case 0:
		r, g, b = c, x, 0
	case 1:
		r, g, b = x, c, 0
	case 2:
		r, g, b = 0, c, x
	case 3:
		r, g, b = 0, x, c
	case 4:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	return rgb(clamp8((r+m)*255), clamp8((g+m)*255), clamp8((b+m)*255))
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func modf(a, b float64) float64 { return a - b*float64(int(a/b)) }
