package clip

// Arg is one argument of a clip, normalised by the provider's table: whether
// it is known yet, whether it says nothing (null, or an empty list or map), and
// how the table compares two of its values. Value is the provider's own value,
// which this package only hands to Same.
type Arg struct {
	Name string
	// Echoed: the service echoes the argument; unset, it accepts the service's
	// choice, so an unknown value matches any.
	Echoed  bool
	Unknown bool
	Nothing bool
	Value   any
	// Same reports whether two known values that say something ask for the same clip.
	Same func(a, b any) bool
}
