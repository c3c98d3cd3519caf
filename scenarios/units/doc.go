// Package units parses and formats the quantities people write in scenario files: byte sizes
// ("1MiB", "4KiB", "1MB", plain integers are bytes), data rates ("100Gbps", "12.5GB/s", and the
// InfiniBand speed names "EDR", "4xHDR", "HDR100") and durations where a kernel tunable counts
// whole seconds (a plain integer such as 50 means 50 s; anything with a unit goes through
// sim.ParseTime).
//
// All arithmetic is exact: numbers are read as decimals (math/big rationals), never as floats,
// and a value that is not a whole number of the base unit (bytes, bits per second, nanoseconds)
// or that does not fit in an int64 is an error. Error messages name the input and say what
// would have been accepted; they never mention Go types.
package units
