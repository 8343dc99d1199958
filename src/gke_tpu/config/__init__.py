"""The stack's config, parsed once into frozen models and decided into plans: pure Python (no
Pulumi import). One wing (folder) per concern, each with its spec, rules, derivations and plan;
the stack level (`stack/`) reads several wings, and `platform.py` parses every section."""
