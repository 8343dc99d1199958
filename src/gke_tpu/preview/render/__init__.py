"""Rendering a recorded plan: `text` (the JSON document and the terminal summary), `manifests`
(Kubernetes YAML), `report` and `network_report` (the Markdown report for a pull request)."""
