# Shell functions the HTTP benchmarks share (bench/http/run.sh, ws_run.sh,
# idle_memory.sh): source it, do not run it.

# Waits (5 s at most) until something accepts on 127.0.0.1:PORT.
wait_for_port() {  # port
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "server on port $1 did not come up" >&2
  return 1
}


# The median of column COLUMN over the rows of FILE whose first column is NAME
# (the upper one of an even count).
median() {  # file name column
  awk -v n="$2" -v c="$3" '$1 == n {print $c}' "$1" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
