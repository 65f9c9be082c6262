"""GCRA (generic cell rate algorithm) with adaptive rates: the arithmetic behind `ratelimit`.

One bucket is a few numbers: `tat`, the theoretical arrival time of the next request; `nb`, a
"not before" time every caller honours (a 429's Retry-After); and the adaptive pair `low`,
`resume`: after a 429 the rate drops to `low` x the documented rate and climbs back from `resume`
(when the block lifts) by `RECOVERY_PER_MINUTE` of the documented rate per quiet minute, never
above it.

A request at `now` is admitted when `now >= tat - tolerance`; admitting it sets
`tat = max(tat, now) + interval`, with `interval = 1 / rate` and `tolerance = (burst - 1) *
interval`. With `burst = 1` two admitted requests are always at least `interval` apart, so the
requests of any half-open window of length W number at most ceil(W / interval): at `rate = N / W`
never more than N, with no burst on top (a token bucket's burst is what made a sliding-window
service answer 429). `pace()` turns a documented "N per window" into the rate and burst to run
GCRA at, with a margin for network jitter.

The same rules run in Python (`GcraState`, for the in-process limiter) and in Lua (`TAKE_SCRIPT`,
`PENALIZE_SCRIPT`, for Redis, timed by the server's clock); `tests/unit/test_ratelimit*.py` hold the
two to the same behaviour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# A 429 halves the rate (multiplicative decrease), at most once per block: the 429s of requests
# already in flight when the first one came back say nothing new.
DECREASE = 0.5
# Never below a tenth of the documented rate.
MIN_FRACTION = 0.1
# Recovery: +10 % of the documented rate per minute without a 429 (additive increase).
RECOVERY_PER_MINUTE = 0.10
RECOVERY_PER_SECOND = RECOVERY_PER_MINUTE / 60.0
# Network jitter the pacing allows for, by default (seconds): see `pace`.
JITTER_ALLOWANCE = 0.05
# Rounding slack when comparing times (the Redis state is kept to the microsecond).
EPSILON = 1e-6

# The most a request admitted by the bucket may leave later than another one (seconds): the Redis
# reply, the transport's own steps before httpx writes it. See `pace`.
SEND_MARGIN = 0.02
# Tolerance for a caller that wakes up late for its turn (seconds): without it, every late wake-up
# is lost for good (the next turn is counted from the late one), and under a busy event loop the
# pace drifts well below the rate (measured: 28.3 s for 228 requests paced at 0.106 s). See `pace`.
LATE_WAKE_SLACK = 0.02


def pace(
    rate: float,
    window_max: float,
    jitter: float = JITTER_ALLOWANCE,
    send_margin: float = SEND_MARGIN,
    slack: float = LATE_WAKE_SLACK,
) -> tuple[float, float]:
    """The GCRA (rate, burst) that keeps "`rate` per second" true over any sliding window.

    A documented rate reads as N requests per window W: W = 1 s, or 1 / rate when that is longer
    (arXiv: one request per 3 s), N = rate x W. `window_max` is the most requests the source
    accepts in one window (the `burst` setting): anything above N (`extra`) is a burst the source
    documents, and becomes GCRA tolerance; nothing above N (the default everywhere) means none.

    Requests are admitted at interval T = (W + J + m + s) / N with tolerance L = extra x T + s,
    i.e. burst = 1 + extra + s / T (a fractional burst: a tolerance of part of one interval).
    J = `jitter` is the spread of network delays, m = `send_margin` the spread of
    admission-to-send delays, s = `slack` lets a caller that woke up late take its turn without
    pushing every later turn back. Then no N + extra + 1 requests arrive within one window W of
    the source's clock. Proof: GCRA admits a request at t only if t >= tat - L, and advances tat
    by T per admission, so the k-th admission after r_i is no earlier than r_i + k x T - L.
    Request i arrives at a_i = r_i + e_i + d_i, e_i in [0, m] (sent late), d_i in [d0, d0 + J]
    (the network), so a_(i+k) - a_i >= k x T - L - m - J = (k - extra) x T - (s + m + J). Any n
    arrivals inside one half-open window span less than W: (n - 1 - extra) x T < W + s + m + J =
    N x T, so n < N + extra + 1. With no documented burst, n <= N. The bound is tight
    (`tests/unit/test_ratelimit_sliding.py` fills a window with exactly N, and a send later than
    m puts N + 1 in one), and it needs only one J: both delays are spreads, not offsets, so one
    request late on the network is late relative to the others, never early. (Before: N per
    (W + 2J), a J counted for the release too: 10 % under the rate at J = 50 ms; now 9 %, with
    no drift from late wake-ups.)

    A source that allows one request per several seconds (arXiv: 3 s, DBLP: 2 s) is paced with no
    slack, T = W + J + m: a wake-up a few milliseconds late costs a small share of a
    several-second interval, and a slack would be added to every one. It used to get
    2 x max(J, 5 % of W) (arXiv one per 3.3 s, DBLP one per 2.2 s: 10 % under the documented
    rate), from a time before late grants were given up (`send_delay.acquire_in_time`) and the
    send margin was learnt from traced sends: a loaded event loop held releases past 50 ms,
    which m now measures and paces for.
    """
    if not rate > 0:
        raise ValueError(f"rate must be positive, got {rate!r}")
    if jitter < 0 or send_margin < 0 or slack < 0:
        raise ValueError(
            f"jitter, send_margin and slack must not be negative: {jitter!r}, {send_margin!r}, {slack!r}"
        )
    window = max(1.0, 1.0 / rate)
    per_window = rate * window
    extra = max(0, math.floor(window_max - per_window + EPSILON))
    if window > 1.0:
        # A late wake-up costs little of a several-second interval; a slack would cost every one.
        slack = 0.0
    allowance = jitter + send_margin + slack
    interval = (window + allowance) / per_window
    return 1.0 / interval, 1 + extra + slack / interval


@dataclass
class GcraState:
    """One bucket, in process (the Redis hash holds the same four fields)."""

    tat: float = 0.0
    nb: float = 0.0
    low: float = 1.0
    resume: float = 0.0

    def fraction(self, now: float) -> float:
        """The share of the documented rate in force at `now` (1.0 unless a 429 lowered it)."""
        if self.low >= 1.0:
            return 1.0
        return min(1.0, self.low + max(0.0, now - self.resume) * RECOVERY_PER_SECOND)

    def take(self, now: float, rate: float, burst: float) -> float:
        """Admit one request at `now` (0.0) or say how long to wait (nothing changes then)."""
        if self.nb > now:
            return self.nb - now
        interval = 1.0 / (rate * self.fraction(now))
        tolerance = (burst - 1) * interval
        # The moment a block lifts counts as an empty bucket: no burst right after a 429.
        tat = max(self.tat, now, self.nb + tolerance if self.nb > 0 else 0.0)
        allow_at = tat - tolerance
        if allow_at > now + EPSILON:
            return allow_at - now
        self.tat = tat + interval
        return 0.0

    def hold_back(self, seconds: float) -> None:
        """A request left `seconds` later than the pace allowed for: the next admission moves
        back as far, so the next request still arrives a full interval after it."""
        if seconds > 0 and self.tat > 0:
            self.tat += seconds

    def penalize(self, now: float, seconds: float) -> float:
        """A 429: nobody before `now + seconds`, and (once per block) the rate halved. Returns nb."""
        if self.nb <= now:  # not blocked yet: this 429 is news
            self.low = max(MIN_FRACTION, self.fraction(now) * DECREASE)
        self.nb = max(self.nb, now + seconds)
        self.resume = self.nb
        return self.nb


# --- the same in Lua, for Redis ------------------------------------------------------------------

# Every script reads the time from the Redis server unless a test passes one (the last ARGV), so
# all processes, on any host, count against one clock. (Writing after TIME needs effect
# replication, the default since Redis 5.)
_NOW = """
local now
if ARGV[#ARGV] ~= '' then
  now = tonumber(ARGV[#ARGV])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
"""

_LOAD = f"""
local recovery = {RECOVERY_PER_SECOND!r}
local s = redis.call('HMGET', KEYS[1], 'tat', 'nb', 'low', 'resume')
local tat = tonumber(s[1]) or 0
local nb = tonumber(s[2]) or 0
local low = tonumber(s[3]) or 1
local resume = tonumber(s[4]) or 0
local function fraction()
  if low >= 1 then return 1 end
  local since = now - resume
  if since < 0 then since = 0 end
  return math.min(1, low + since * recovery)
end
local function expire()
  local keep = math.max(tat, nb)
  if low < 1 then keep = math.max(keep, resume + (1 - low) / recovery) end
  redis.call('PEXPIRE', KEYS[1], math.ceil((keep - now) * 1000) + 1000)
end
"""

# KEYS: the bucket's hash. ARGV: rate, burst, now ('' = server TIME).
# Returns the wait in seconds as a string (Lua numbers returned to Redis are truncated to integers).
TAKE_SCRIPT = (
    _NOW
    + _LOAD
    + f"""
if nb > now then
  return string.format('%.6f', nb - now)
end
local interval = 1 / (tonumber(ARGV[1]) * fraction())
local tolerance = (tonumber(ARGV[2]) - 1) * interval
local t = math.max(tat, now)
if nb > 0 then t = math.max(t, nb + tolerance) end
local allow = t - tolerance
if allow > now + {EPSILON!r} then
  return string.format('%.6f', allow - now)
end
tat = t + interval
redis.call('HSET', KEYS[1], 'tat', string.format('%.6f', tat))
expire()
return '0'
"""
)

# KEYS: the bucket's hash. ARGV: seconds, now. The next admission moves back `seconds` (a request
# left that much later than paced for).
HOLD_BACK_SCRIPT = (
    _NOW
    + _LOAD
    + """
if tat > 0 then
  tat = tat + tonumber(ARGV[1])
  redis.call('HSET', KEYS[1], 'tat', string.format('%.6f', tat))
  expire()
end
return '0'
"""
)

# KEYS: the bucket's hash. ARGV: seconds, now. Returns the new not-before time.
PENALIZE_SCRIPT = (
    _NOW
    + _LOAD
    + f"""
if nb <= now then
  low = math.max({MIN_FRACTION!r}, fraction() * {DECREASE!r})
end
nb = math.max(nb, now + tonumber(ARGV[1]))
resume = nb
redis.call('HSET', KEYS[1], 'nb', string.format('%.6f', nb), 'low', string.format('%.6f', low),
  'resume', string.format('%.6f', resume))
expire()
return string.format('%.6f', nb)
"""
)

# KEYS: the bucket's hash. ARGV: now. The share of the documented rate in force, as a string.
FRACTION_SCRIPT = (
    _NOW
    + _LOAD
    + """
return string.format('%.6f', fraction())
"""
)

NOW_SNIPPET = _NOW  # for the slot scripts in `ratelimit`
