package axis

// Schedule is the schedule axis: how a cell's trials meet the trials of
// the cell it is compared with. interleaved (the default): one after the
// other, back to back in each round; duet: at the same time, each side
// with its own load generator on cores of its own, swapping cores every
// round. A run may hold both, each cell compared with its baseline of the
// same schedule, so that one run shows both A/A floors.
var Schedule = Axis{
	Name: "schedule",
	Doc: "How a compared cell's trials meet its baseline's (an A/A twin's, an earlier revision's): interleaved, back to back in each round; " +
		"duet, at the same time on cores of their own, each with its own load generator, swapping cores every round (run --schedule duet).",
	Example: "[interleaved, duet]",
	Default: ScheduleInterleaved,
	Check: func(v string) string {
		if v != ScheduleInterleaved && v != ScheduleDuet {
			return "a schedule is interleaved or duet"
		}
		return ""
	},
}

// The schedule axis's values.
const (
	ScheduleInterleaved = "interleaved"
	ScheduleDuet        = "duet"
)

func init() { Register(Schedule) }
