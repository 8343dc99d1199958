"""The Kubernetes objects a plan renders, held to the API's rules: schemas of the built-in kinds
per minor (openapi/, from `make openapi`) and of the custom kinds (crds/), and the API server's
value rules the schemas do not carry."""
