"""The report page's style sheet and markup, read as package resources (an
installed wheel needs no checkout) and inlined into the one HTML file."""
