"""The masking engine: a snippet's code as eligible tokens, masks drawn from them (token, span, line),
answers scored by token match, token diffs, and the code rendered with an input per blank.

Pure functions of their inputs; imports only i18n from the app.
"""
