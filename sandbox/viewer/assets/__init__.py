"""The viewer's page templates (templates/) and the style and scripts that every
page inlines (static/), so a page is one file that fetches nothing.

The scripts never use ``innerHTML``: they clone the escaped nodes the server
rendered into ``<template>`` elements and set generated labels with
``textContent``.
"""
