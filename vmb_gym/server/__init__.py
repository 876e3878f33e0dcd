"""``vmb serve``: VehicleMem-v0 (and the stream env) as an OpenEnv environment server.

The package needs the ``server`` extra (``pip install 'vmb_gym[server]'``: ``openenv`` 0.10 or later with
FastAPI, uvicorn and websockets; ``/mcp`` also needs the ``mcp`` SDK 2.x, see docs/openenv-mcp.md). Its modules:

* :mod:`vmb_gym.server.openenv_api`: every name taken from OpenEnv, imported in one place;

* :mod:`vmb_gym.server.models`: the pydantic ``VmbAction`` / ``VmbObservation`` / ``VmbState``;
* :mod:`vmb_gym.server.environment`: ``VehicleMemEnvironment``, the OpenEnv ``Environment``
  subclass (one session, one gym env, one car), and the ``EnvPool`` the sessions draw from;
* :mod:`vmb_gym.server.guard`: the ASGI guard (bearer token, request-size cap);
* :mod:`vmb_gym.server.ws_sessions`: ``SessionEndpoint``, OpenEnv's ``/ws`` session protocol on a lean
  hot path (one JSON decode and encode per message);
* :mod:`vmb_gym.server.mcp_tools`: ``McpEndpoint``, the env's tools over MCP at ``/mcp`` (streamable
  HTTP; one MCP session, one episode on its own env, behind the same guard and session cap);
* :mod:`vmb_gym.server.app`: ``ServeConfig``, ``create_vmb_app`` (OpenEnv ``create_app`` wiring) and
  ``serve`` (uvicorn);
* :mod:`vmb_gym.server.asgi`: the app as a module attribute (``uvicorn vmb_gym.server.asgi:app``,
  ``openenv.yaml``, the Dockerfile), configured by ``VMB_SERVE_*`` variables;
* :mod:`vmb_gym.server.client`: ``VmbEnvClient``, OpenEnv's ``EnvClient`` for this server;
* :mod:`vmb_gym.server.tool_episode`: re-exports ``ToolEpisode`` from :mod:`vmb_gym.envs.tool_episode`
  (one episode per rollout with the env's tools as typed methods, the TRL ``environment_factory`` shape);
* :mod:`vmb_gym.server.trl`: ``RemoteToolEnv``, a TRL ``environment_factory`` class over the client.

This ``__init__`` imports nothing heavy; ``vmb_gym.server.tool_episode`` works without the extra.
"""
