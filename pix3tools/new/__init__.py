"""`pix3 new`: a project from a starter (base layer + the 2d or 3d template), then the kit.

The starters are our own templates, package data under ``templates/`` (docs/new.md). The
command is ``pix3tools.new.command``.
"""

from __future__ import annotations

from pix3tools.new._create import Created, CreateError, create_project, package_name_of, project_yaml
from pix3tools.new._templates import (
    PACKAGED_ROOT,
    Template,
    TemplateError,
    find_template,
    list_templates,
    one_line,
    templates_root,
)

__all__ = [
    "PACKAGED_ROOT",
    "CreateError",
    "Created",
    "Template",
    "TemplateError",
    "create_project",
    "find_template",
    "list_templates",
    "one_line",
    "package_name_of",
    "project_yaml",
    "templates_root",
]
