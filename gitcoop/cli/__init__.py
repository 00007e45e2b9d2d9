"""The typer commands: parse, call a service, print text or --json."""
