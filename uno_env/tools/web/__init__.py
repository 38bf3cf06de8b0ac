"""Play, watch and replay UNO in the browser: ``uno-serve`` (:mod:`uno_env.tools.web.server`).

``server`` is the ASGI app, its JSON API (the spec) and its command line; ``validate``
parses and checks requests (``ApiError``, rules, agent specs, actions); ``games`` holds the
games the server plays and its store of games and replays; ``replays`` replays an uploaded
log frame by frame; ``views`` builds what the page is sent (one seat's knowledge, or the
open table of a watched game or a replay); ``static/`` is the page (plain HTML, CSS and
JavaScript, shipped as package data). Starlette and uvicorn come with the ``web`` extra;
nothing here is imported by the rest of the package.
"""
