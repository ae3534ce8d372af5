package bench

import "time"

// Settings are the sizes of the cases. DefaultSettings is what `make bench`
// runs; QuickSettings are small versions of every case, to check the harness.
type Settings struct {
	LatencyTasks int        `json:"latency_tasks"`
	Generations  []Duration `json:"generation_times"`
	Spread       float64    `json:"generation_spread"` // tasks of a case spread evenly over ±Spread of its time
	// ProgressGenerations are the latency cases run a second time against the
	// mock's new-api dialect, whose tasks report progress.
	ProgressGenerations []Duration `json:"progress_generation_times"`
	ApplyClips          int        `json:"apply_clips"`
	ApplyParallelism    int        `json:"apply_parallelism"`
	ApplyGeneration     Duration   `json:"apply_generation"`
	ApplyRepeats        int        `json:"apply_repeats"`
	RefreshClips        int        `json:"refresh_clips"`
	RefreshRPS          float64    `json:"refresh_rate_limit_rps"`
	RefreshParallelism  int        `json:"refresh_parallelism"`
	RefreshRepeats      int        `json:"refresh_repeats"`
	SweepTasks          int        `json:"sweep_tasks"`
	SweepFrom           Duration   `json:"sweep_from"`
	SweepTo             Duration   `json:"sweep_to"`
	StartupRuns         int        `json:"startup_runs"`
	DownloadBytes       int64      `json:"download_bytes"`
	DownloadRepeats     int        `json:"download_repeats"`
	StoreBytes          int64      `json:"store_bytes"`
	StoreRepeats        int        `json:"store_repeats"`

	WavesClips          int      `json:"waves_clips"`
	WavesGeneration     Duration `json:"waves_generation"`
	WavesSpread         float64  `json:"waves_spread"`
	WavesParallelism    int      `json:"waves_parallelism"`
	LongClips           int      `json:"long_clips"`
	LongGeneration      Duration `json:"long_generation"`
	LongSpread          float64  `json:"long_spread"`
	FanOutClips         int      `json:"fanout_clips"`
	FanOutGeneration    Duration `json:"fanout_generation"`
	FanOutRPS           float64  `json:"fanout_rate_limit_rps"`
	FanOutParallelism   int      `json:"fanout_parallelism"`
	BigRefreshClips     int      `json:"big_refresh_clips"`
	BigRefreshRPS       float64  `json:"big_refresh_rate_limit_rps"`
	BigApplyClips       int      `json:"big_apply_clips"`
	BigApplyParallelism int      `json:"big_apply_parallelism"`
	BigApplyGeneration  Duration `json:"big_apply_generation"`
}

// DefaultSettings are the cases BENCHMARKS.md reports.
func DefaultSettings() Settings {
	return Settings{
		LatencyTasks:        40,
		Generations:         []Duration{Duration(2 * time.Second), Duration(10 * time.Second), Duration(60 * time.Second)},
		Spread:              0.1,
		ProgressGenerations: []Duration{Duration(10 * time.Second), Duration(60 * time.Second)},
		ApplyClips:          50, ApplyParallelism: 10, ApplyGeneration: Duration(2 * time.Second), ApplyRepeats: 3,
		RefreshClips: 500, RefreshRPS: 50, RefreshParallelism: 10, RefreshRepeats: 2,
		SweepTasks: 40, SweepFrom: Duration(time.Second), SweepTo: Duration(60 * time.Second),
		StartupRuns:   15,
		DownloadBytes: 1 << 30, DownloadRepeats: 3,
		StoreBytes: 1 << 30, StoreRepeats: 3,

		WavesClips: 100, WavesGeneration: Duration(4 * time.Second), WavesSpread: 0.1, WavesParallelism: 10,
		LongClips: 20, LongGeneration: Duration(30 * time.Second), LongSpread: 0.3,
		FanOutClips: 300, FanOutGeneration: Duration(5 * time.Second), FanOutRPS: 20, FanOutParallelism: 100,
		BigRefreshClips: 1000, BigRefreshRPS: 50,
		BigApplyClips: 2000, BigApplyParallelism: 200, BigApplyGeneration: Duration(2 * time.Second),
	}
}

// QuickSettings run every case small, in a few minutes.
func QuickSettings() Settings {
	s := DefaultSettings()
	s.LatencyTasks = 8
	s.Generations = []Duration{Duration(2 * time.Second), Duration(5 * time.Second)}
	s.ProgressGenerations = []Duration{Duration(5 * time.Second)}
	s.ApplyClips, s.ApplyRepeats = 20, 1
	s.RefreshClips, s.RefreshRepeats = 100, 1
	s.SweepTasks, s.SweepTo = 8, Duration(8*time.Second)
	s.StartupRuns = 3
	s.DownloadBytes, s.DownloadRepeats = 64<<20, 1
	s.StoreBytes, s.StoreRepeats = 64<<20, 1
	s.WavesClips, s.WavesGeneration = 30, Duration(2*time.Second)
	s.LongClips, s.LongGeneration = 6, Duration(6*time.Second)
	s.FanOutClips, s.FanOutParallelism = 60, 30
	s.BigRefreshClips = 150
	s.BigApplyClips, s.BigApplyParallelism = 100, 20
	return s
}
