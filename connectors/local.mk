# connectors/
