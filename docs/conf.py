"""Sphinx configuration of the tealeaves documentation (``make docs``)."""

from __future__ import annotations

import os

from sphinx_gallery.sorting import ExplicitOrder

import tealeaves

project = "tealeaves"
author = "tealeaves developers"
copyright = "tealeaves developers"
release = tealeaves.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "examples/GALLERY_HEADER.rst"]

# MyST: Markdown pages with headings that can be linked to, fenced directives and $math$
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

# API reference: one page per public name, numpy-style docstrings
autosummary_generate = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# the gallery: every docs/examples/plot_*.py runs at build time on the built-in corpus
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    # the order of a whole evaluation, as in the user guide
    "within_subsection_order": ExplicitOrder(
        [
            "plot_train_lda.py",
            "plot_heldout_likelihood.py",
            "plot_coherence.py",
            "plot_diversity.py",
            "plot_word_intrusion.py",
            "plot_power_analysis.py",
            "plot_notebook_displays.py",
        ]
    ),
    "download_all_examples": False,
    "remove_config_comments": True,
    "reset_modules": ("matplotlib",),
    "show_memory": False,
    "min_reported_time": 1,
}

html_theme = "pydata_sphinx_theme"
html_title = f"tealeaves {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
# the theme reads the colour mode from localStorage; on a first visit (empty storage) it falls
# back to this value, and without it logs "Got invalid theme mode" as a console error
html_context = {"default_mode": "auto"}
html_last_updated_fmt = None

# matplotlib draws in files, never in a window, while the gallery runs
os.environ.setdefault("MPLBACKEND", "agg")


def constant_docstring(app, what, name, obj, options, lines):
    """A constant that a package re-exports (``tealeaves.coherence.MEASURES``) shows the docstring
    written after its assignment in the submodule that defines it; autodoc reads only the
    package's ``__init__`` and would show the docstring of the value's type (``str``, ``tuple``)."""
    if what != "data":
        return
    import sys

    from sphinx.pycode import ModuleAnalyzer

    package, _, attr = name.rpartition(".")
    for owner in sorted(m for m in sys.modules if m == package or m.startswith(f"{package}.")):
        if getattr(sys.modules[owner], attr, None) is obj:
            found = ModuleAnalyzer.for_module(owner).find_attr_docs().get(("", attr))
            if found:
                lines[:] = list(found)
                return


def setup(app):
    app.connect("autodoc-process-docstring", constant_docstring)
