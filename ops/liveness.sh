# Sourced by ops/start and ops/stop: is the process a pid file names still one of ours?
#
# `kill -0 PID` is not enough. A pool killed with SIGKILL stays a zombie until its parent reaps it
# (in a container whose init does not reap, for ever), and `kill -0` succeeds on a zombie; after a
# crash or a reboot the pid may belong to another program. Either way ops/start would say "already
# running" and not start the pool. So a pid counts as alive only when /proc says it is not a zombie
# (state Z) or dead (X), and its environment carries the ALETHEIA_POOL=NAME that ops/start gave it.
# Without /proc (not Linux), `kill -0` is all there is.

# pid_alive PIDFILE NAME: true when PIDFILE holds the pid of a live process started as pool NAME.
pid_alive() {
  local pidfile="$1" name="$2" pid stat state
  [[ -f "$pidfile" ]] || return 1
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  if [[ ! -d /proc/self ]]; then
    kill -0 "$pid" 2>/dev/null
    return
  fi
  stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || return 1
  # The state is the first field after the command name, which is in parentheses and may hold
  # spaces or parentheses itself: take what follows the last ") ".
  state="${stat##*) }"
  state="${state%% *}"
  [[ -n "$state" && "$state" != Z && "$state" != X && "$state" != x ]] || return 1
  tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "ALETHEIA_POOL=$name"
}
