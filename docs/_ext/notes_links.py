"""Sphinx extension: every ``notes.md#anchor`` written in the text becomes a link.

Docstrings, registry notes and reports cite the implementation notes as ``notes.md#anchor``
(plain text, so that they read the same in a terminal, ``help()`` and the source). On the
site, each such mention, in running text or in inline code, becomes a link to that section
of ``algorithms/notes``. An anchor that the notes do not define is a build warning (an
error under ``-W``), so a citation cannot point nowhere.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)

NOTES = "algorithms/notes"
PATTERN = re.compile(r"(?:\.\./)*(?:algorithms/)?notes\.md#([A-Za-z0-9][A-Za-z0-9_-]*)")
_SKIP = (nodes.reference, nodes.literal_block, nodes.raw, nodes.comment, nodes.target,
         nodes.math, nodes.math_block)


def _target(app, docname, anchor, node):
    labels = app.env.domaindata["std"]["labels"]
    if anchor not in labels or labels[anchor][0] != NOTES:
        logger.warning("notes.md#%s: the implementation notes have no such section",
                       anchor, location=node)
        return None
    return app.builder.get_relative_uri(docname, NOTES) + "#" + labels[anchor][1]


def _inside(node, kinds) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, kinds):
            return True
        parent = parent.parent
    return False


def link_notes(app, doctree, docname) -> None:
    """Replace the ``notes.md#anchor`` mentions of a resolved doctree by references."""
    if app.builder.format != "html":
        return
    for literal in list(doctree.findall(nodes.literal)):
        text = literal.astext()
        match = PATTERN.fullmatch(text.strip())
        if match and not _inside(literal, _SKIP):
            uri = _target(app, docname, match.group(1), literal)
            if uri:
                literal.replace_self(nodes.reference("", "", literal.deepcopy(),
                                                     refuri=uri, internal=True))
    for text in list(doctree.findall(nodes.Text)):
        if _inside(text, (*_SKIP, nodes.literal)) or not PATTERN.search(text.astext()):
            continue
        raw, parts, last = text.astext(), [], 0
        for match in PATTERN.finditer(raw):
            uri = _target(app, docname, match.group(1), text.parent)
            if not uri:
                continue
            parts.append(nodes.Text(raw[last:match.start()]))
            parts.append(nodes.reference(match.group(0), match.group(0), refuri=uri,
                                         internal=True))
            last = match.end()
        if parts:
            parts.append(nodes.Text(raw[last:]))
            parent = text.parent
            index = parent.index(text)
            parent.remove(text)
            for k, part in enumerate(parts):
                parent.insert(index + k, part)


def setup(app):
    app.connect("doctree-resolved", link_notes)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
