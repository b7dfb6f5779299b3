package titles

import "strings"

// Kind is the kind of video a prompt describes, recognised from cue words.
type Kind string

// The kinds of video the builtin generator knows patterns for.
const (
	KindGeneric    Kind = "general"
	KindHowTo      Kind = "how-to"
	KindTutorial   Kind = "tutorial"
	KindList       Kind = "list"
	KindReview     Kind = "review"
	KindComparison Kind = "comparison"
	KindStory      Kind = "story"
	KindChallenge  Kind = "challenge"
	KindNews       Kind = "news"
	KindReaction   Kind = "reaction"
	KindUnboxing   Kind = "unboxing"
	KindVlog       Kind = "vlog"
	KindExplainer  Kind = "explainer"
	KindRecipe     Kind = "recipe"
	KindGameplay   Kind = "gameplay"
)

// cue is a word sequence that suggests a kind, with how strongly.
type cue struct {
	words  []string
	weight int
}

// kindOrder breaks ties: earlier kinds are more specific.
var kindOrder = []Kind{KindComparison, KindUnboxing, KindReaction, KindChallenge, KindReview,
	KindRecipe, KindList, KindTutorial, KindHowTo, KindNews, KindGameplay, KindVlog, KindStory,
	KindExplainer}

var kindCues = map[Kind][]cue{
	KindComparison: cues(3, "vs", "versus", "vs.", "head to head", "compared", "comparison", "which is better", "better than", "side by side"),
	KindUnboxing:   cues(3, "unboxing", "unbox", "unboxed", "what's in the box", "first impressions", "first look"),
	KindReaction:   cues(3, "reaction", "reacting", "react", "reacts", "first time hearing", "first time watching"),
	KindChallenge:  cues(3, "challenge", "for 24 hours", "24 hour", "last to leave", "100 days", "survived", "survive", "surviving", "i tried"),
	KindReview:     cues(3, "review", "reviewed", "worth it", "honest opinion", "pros and cons", "long term", "is it worth", "after a month", "tested", "rating"),
	KindRecipe:     cues(2, "recipe", "recipes", "cook", "cooking", "bake", "baking", "dinner", "breakfast", "lunch", "dessert", "meal prep", "homemade", "dough", "flour", "oven", "ingredients", "toppings", "sauce"),
	KindList:       cues(2, "top", "best", "ranking", "ranked", "tier list", "things", "ways", "reasons", "mistakes", "tips", "hacks", "ideas", "must have", "must-have"),
	KindTutorial:   cues(3, "tutorial", "course", "lesson", "for beginners", "beginner", "beginners", "walkthrough", "masterclass", "crash course", "learn"),
	KindHowTo:      cues(3, "how to", "how do i", "how do you", "step by step", "step-by-step", "guide", "diy", "fix", "easy way"),
	KindNews:       cues(3, "news", "breaking", "announced", "announces", "announcement", "just released", "leak", "leaked", "update", "launch", "launches", "launched", "officially", "report"),
	KindGameplay:   cues(2, "gameplay", "let's play", "playthrough", "speedrun", "boss fight", "ranked match", "gaming", "game", "season"),
	KindVlog:       cues(3, "vlog", "day in the life", "a day in", "week in", "travel", "trip", "morning routine", "road trip", "exploring"),
	KindStory:      cues(3, "story", "storytime", "story time", "happened", "my journey", "how i", "i quit", "i lost", "i was", "the day"),
	KindExplainer:  cues(3, "why", "explained", "what is", "what are", "how does", "how do", "the science", "history of", "the truth about", "the rise", "the fall"),
}

func cues(weight int, phrases ...string) []cue {
	out := make([]cue, len(phrases))
	for i, p := range phrases {
		out[i] = cue{words: strings.Fields(p), weight: weight}
	}
	return out
}

// detectKind scores every kind by the cue phrases found in words (lower case); cues in
// the opening words count double, since a description states its format first.
func detectKind(words []string, opening int) Kind {
	best, bestScore := KindGeneric, 0
	for _, k := range kindOrder {
		score := 0
		for _, c := range kindCues[k] {
			score += c.weight * (countSeq(words, c.words) + countSeq(words[:opening], c.words))
		}
		if score > bestScore {
			best, bestScore = k, score
		}
	}
	return best
}

func countSeq(words, seq []string) int {
	n := 0
	for i := 0; i+len(seq) <= len(words); i++ {
		match := true
		for j, w := range seq {
			if words[i+j] != w {
				match = false
				break
			}
		}
		if match {
			n++
		}
	}
	return n
}

// topics name a broad subject from cue words, for the reasoning.
var topics = []struct {
	name  string
	words map[string]bool
}{
	{"gaming", set("game games gaming gameplay minecraft fortnite roblox gta zelda mario valorant playstation ps5 xbox nintendo steam boss speedrun esports")},
	{"cooking", set("recipe recipes cook cooking bake baking bread pasta pizza dinner breakfast lunch dessert chicken meal sourdough cake soup ramen curry")},
	{"tech", set("iphone android laptop laptops phone phones pc gpu cpu ai chatgpt app apps software code coding programming python javascript tech gadget gadgets camera samsung apple macbook keyboard keyboards mouse headphones earbuds monitor tablet console")},
	{"travel", set("travel trip vlog city country japan tokyo kyoto paris italy hotel flight beach island backpacking itinerary road")},
	{"finance", set("money invest investing stocks stock crypto bitcoin budget budgeting savings save debt income tax taxes etf retirement finance salary")},
	{"fitness", set("workout workouts gym fitness muscle abs cardio running run marathon yoga hiit weight protein squat training")},
	{"music", set("song songs music guitar piano album singer rap band chords beat drums producer concert")},
	{"beauty", set("makeup skincare hair beauty nails skin fashion outfit outfits")},
	{"education", set("learn study exam math science history physics chemistry language english spanish lesson course")},
}

func detectTopic(words []string) string {
	best, bestN := "", 0
	for _, t := range topics {
		n := 0
		for _, w := range words {
			if t.words[w] {
				n++
			}
		}
		if n > bestN {
			best, bestN = t.name, n
		}
	}
	return best
}

// stopwords never start, end or fill a key phrase: function words, generic verbs and
// adjectives, and the cue words of kinds (the kind is said by the template instead).
var stopwords = set(`a an the and or but nor if then so than too very of in on at to for by with from as
	into onto over under about after before between through during without within up down out off
	is are was were be been being am do does did doing done have has had having will would can could
	should shall may might must i me my mine we us our you your yours he him his she her it its they
	them their this that these those there here what which who whom whose when where why how all any
	each every some no not only own same other such more most less least just also even still really
	now today new video videos episode part channel subscribe watch content thumbnail title titles
	make making made get getting got use using used do try trying tried need want know going go
	let lets let's i'm i've it's don't dont can't im ive youre you're we're they're that's what's
	here's there's its one thing things way ways easy easiest simple quick quickly best good
	great ultimate perfect amazing awesome insane crazy epic complete full real really actually
	top review reviews reviewed vs versus tutorial tutorials guide guides vlog challenge reaction
	react reacting unboxing unbox news breaking update story storytime explained explainer recipe
	recipes tips tip hacks hack ideas idea mistakes reasons step steps beginner beginners
	learn learning ranking ranked tier list compared comparison worth honest opinion first time
	ever never always like love hate lot lots much many few well also via per vs. whether while
	started start finally honestly literally basically gonna wanna i'd i'll we'll you'll
	day days week weeks month months year years hour hours minute minutes second seconds
	home way sure check look looking travel trip exploring explore vlogs full
	makes wins won announced announces announce launches launched launch hearing watching
	paid pays pay moved move quit lost got gets giving gives gave takes took take goes went
	comes came says said tells told shows showed finds found tries buys bought sells sold
	fell falls happens happened happen saves saved works worked leave leaves spent spend
	went became become becomes reveals revealed changed changes keeps kept
	dollars dollar euros euro pounds bucks percent miles mile km`)

// actionVerbs can follow "how to"; they become the verb of how-to titles.
var actionVerbs = set(`make build fix cook bake grow learn start get use clean draw paint play win save invest
	edit train lose gain speed install set code write plant brew sew knit design create remove
	repair upgrade master improve boost find sell buy travel pack plan study read sing dance
	run lift climb swim ride drive fly shoot film record mix produce launch grill roast fry brew
	organize organise declutter decorate style shave cut dye braid apply care raise beat survive
	speak memorize memorise focus sleep meditate negotiate budget retire`)

// listUnits are plural nouns that follow a list's number ("10 tips").
var listUnits = set(`tips ways things reasons mistakes hacks habits tricks secrets signs ideas rules lessons facts
	places games books apps tools gadgets foods recipes exercises moves songs movies shows spots
	cities countries destinations products items upgrades features settings questions myths
	truths skills jobs stocks cars phones laptops cameras`)
