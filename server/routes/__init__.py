"""The API's routers, one per resource."""
