"""YAML for front matter, bounded: no aliases (a 2 KB alias bomb expands to gigabytes, and
front matter never needs them) and no more than a few kilobytes of text."""

import yaml
from yaml.composer import ComposerError

MAX_CHARS = 16 * 1024


class AliasRefused(ComposerError):
    pass


class _NoAliases(yaml.SafeLoader):
    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise AliasRefused(None, None, "aliases (*name) are not allowed in front matter", event.start_mark)
        return super().compose_node(parent, index)


class TooLarge(yaml.YAMLError):
    pass


def load(text: str):
    """The YAML value of `text`; YAMLError for aliases, text over MAX_CHARS, or invalid YAML."""
    if len(text) > MAX_CHARS:
        raise TooLarge(f"front matter is {len(text)} characters, at most {MAX_CHARS} are read")
    return yaml.load(text, Loader=_NoAliases)  # noqa: S506 (a SafeLoader subclass)
