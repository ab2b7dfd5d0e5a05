# Shell functions the HTTP benchmarks share (bench/http/run.sh, ws_run.sh,
# idle_memory.sh, ws_callgrind.sh): source it, do not run it.

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

# The value of KEY in a line of key=value words.
field() { tr ' ' '\n' <<< "$2" | awk -F= -v k="$1" '$1 == k {print $2}'; }  # key line

# The hello-world servers (run.sh, idle_memory.sh): the command that starts NAME on PORT.
# Needs BUILD and WORK; nginx's slots and file limit: NGINX_SLOTS, NGINX_NOFILE (default 1024 each).
hello_nginx_conf() {  # port
  cat > "$WORK/nginx.conf" <<CONF
worker_processes 1;
worker_rlimit_nofile ${NGINX_NOFILE:-1024};
daemon off;
master_process off;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections ${NGINX_SLOTS:-1024}; }
http {
  access_log off;
  server_tokens off;
  keepalive_requests 1000000;
  keepalive_timeout 300s;
  server {
    listen 127.0.0.1:$1 backlog=4096;
    location = / { default_type text/plain; return 200 "hello"; }
  }
}
CONF
  echo "$WORK/nginx.conf"
}

hello_server_cmd() {  # name port
  case "$1" in
    duet-io_uring) echo "$BUILD/examples/http_hello_stackless --port $2 --backend io_uring" ;;
    duet-epoll) echo "$BUILD/examples/http_hello_stackless --port $2 --backend epoll" ;;
    fiber-io_uring) echo "$BUILD/examples/http_hello_stackful --port $2 --backend io_uring" ;;
    fiber-epoll) echo "$BUILD/examples/http_hello_stackful --port $2 --backend epoll" ;;
    nginx) echo "nginx -e $WORK/nginx-error.log -c $(hello_nginx_conf "$2")" ;;
    beast) echo "$BUILD/bench/http/beast_http_hello --port $2" ;;
  esac
}

# SERVERS narrowed to ONLY="names" when set; a name the command function does not know exits 2.
apply_only() {  # command-function
  [[ -n "${ONLY:-}" ]] || return 0
  read -r -a SERVERS <<< "$ONLY"
  for name in "${SERVERS[@]}"; do [[ -n "$("$1" "$name" 0)" ]] || { echo "unknown server $name" >&2; exit 2; }; done
}
