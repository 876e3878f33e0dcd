"""``vmb serve``: the env as an OpenEnv server (WebSocket sessions, the tools over MCP, HTTP schema and health)."""

from __future__ import annotations

import argparse
import sys

HELP = "Serve VehicleMem-v0 (or the stream env) as an OpenEnv environment server on loopback."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb serve``."""
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind; anything but loopback exposes the env to the network")
    parser.add_argument("--port", type=int, default=8000, help="TCP port")
    parser.add_argument("--env", default="VehicleMem-v0", choices=("VehicleMem-v0", "VehicleMemStream-v0"),
                        help="the Gymnasium env served")
    parser.add_argument("--data", default="default",
                        help="data spec(s), comma-separated ('default', 'official:DIR'); the first is the "
                             "default, a session's reset may pick another of them")
    parser.add_argument("--memory", default="bm25",
                        help="memory module(s) (stream env: store), comma-separated; the first is the default")
    parser.add_argument("--token", default=None,
                        help="bearer token every request must carry (default: $VMB_SERVE_TOKEN; none when unset)")
    parser.add_argument("--max-sessions", type=int, default=64, help="most concurrent sessions")
    parser.add_argument("--session-timeout", type=float, default=600.0,
                        help="seconds of idleness after which a session is closed (0: never)")
    parser.add_argument("--max-request-bytes", type=int, default=1 << 20,
                        help="largest HTTP body or WebSocket message accepted")
    parser.add_argument("--warm", type=int, default=1, help="envs built at start-up, ahead of the first sessions")
    parser.add_argument("--workers", type=int, default=1,
                        help="server processes on the port (each its own envs; --max-sessions and --warm per process)")


def run(args: argparse.Namespace) -> int:
    """Build the config and serve until interrupted."""
    from vmb_gym.errors import ConfigError
    from vmb_gym.server.app import ServeConfig, mcp_unavailable, require_server_extra, serve

    try:
        require_server_extra()
        config = ServeConfig.with_env_token(
            host=args.host, port=args.port, env_id=args.env,
            data=tuple(d.strip() for d in args.data.split(",") if d.strip()),
            memory=tuple(m.strip() for m in args.memory.split(",") if m.strip()),
            token=args.token, max_sessions=args.max_sessions,
            session_timeout=args.session_timeout or None, max_request_bytes=args.max_request_bytes,
            warm=args.warm, workers=args.workers)
    except ConfigError as e:
        print(f"vmb serve: {e}", file=sys.stderr)
        return 2
    if config.host not in ("127.0.0.1", "localhost", "::1") and not config.token:
        print(f"vmb serve: warning: binding {config.host} without a token lets anyone who reaches this port "
              "drive the env; set --token or $VMB_SERVE_TOKEN", file=sys.stderr)
    auth = "token required" if config.token else "no token"
    print(f"vmb serve: {config.env_id} (data {','.join(config.data)}, memory {','.join(config.memory)}) on "
          f"ws://{config.host}:{config.port}/ws ({auth}, at most {config.max_sessions} sessions)", flush=True)
    no_mcp = mcp_unavailable()
    where = "" if config.workers == 1 else "; a session lives in one process: MCP clients need --workers 1"
    print(f"vmb serve: {no_mcp}" if no_mcp else f"vmb serve: MCP tools at http://{config.host}:{config.port}/mcp "
          f"(one MCP session, one episode{where})", flush=True)
    try:
        serve(config)
    except ConfigError as e:
        print(f"vmb serve: {e}", file=sys.stderr)
        return 2
    return 0
