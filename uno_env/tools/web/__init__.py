"""Play, watch and replay UNO in the browser: ``uno-serve`` (:mod:`uno_env.tools.web.server`).

``server`` is the ASGI app and its command line, ``views`` builds what the page is sent
(one seat's knowledge, or the open table of a watched game or a replay), ``static/`` is the
page (plain HTML, CSS and JavaScript, shipped as package data). Starlette and uvicorn come
with the ``web`` extra; nothing here is imported by the rest of the package.
"""
