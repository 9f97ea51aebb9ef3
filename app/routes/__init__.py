"""HTTP routes, one router per area: each reads the request, calls one use case (learn, teach,
memory, classes) and renders through web.templating. Nothing imports routes but the app factory.
"""
