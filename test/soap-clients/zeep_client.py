"""Drives foodlookup's SOAP 1.2 interface with zeep, loaded from the served WSDL.

Reads FOODLOOKUP_URL, FOODLOOKUP_DEVKEY, FOODLOOKUP_TERMS, FOODLOOKUP_FOOD_ID,
FOODLOOKUP_NIL_FOOD_ID; prints one JSON document with what each call returned.
Run with Debian's interpreter: /usr/bin/python3 (it has python3-zeep).
"""
import json
import os

import zeep
from zeep.exceptions import Fault

url = os.environ.get("FOODLOOKUP_URL", "http://127.0.0.1:8080")
devkey = os.environ["FOODLOOKUP_DEVKEY"]
client = zeep.Client(f"{url}/soap/1.2?wsdl")
service = client.service
out = {"binding": client.service._binding.name.localname}


def categories(result):
    return [{"name": c.name, "children": [{"id": f.id, "name": f.name} for f in (c.children or [])]} for c in (result or [])]


def food(result):
    return {
        "id": result.id,
        "name": result.name,
        "servings": [
            {"name": s.name, "nutrients": {k: s.nutrients[k] for k in
             ["calories", "fat", "carbohydrate", "protein", "fiber", "sugar", "sodium", "calcium", "satfat", "cholesterol"]}}
            for s in (result.servings or [])
        ],
    }


def fault(call):
    try:
        call()
        return None
    except Fault as error:
        return {"code": error.code, "message": error.message, "subcodes": [str(s) for s in (error.subcodes or [])]}


out["search"] = categories(service.foodSearch(devkey=devkey, terms=os.environ.get("FOODLOOKUP_TERMS", "cheddar cheese")))
out["emptySearch"] = categories(service.foodSearch(devkey=devkey, terms=""))
out["unmatchedSearch"] = categories(service.foodSearch(devkey=devkey, terms="xyzzyplugh"))
out["food"] = food(service.getFood(devkey=devkey, id=os.environ["FOODLOOKUP_FOOD_ID"]))
out["nilFood"] = food(service.getFood(devkey=devkey, id=os.environ["FOODLOOKUP_NIL_FOOD_ID"]))
out["unknownId"] = fault(lambda: service.getFood(devkey=devkey, id="00000000-0000-4000-8000-999999999999"))
out["badDevkey"] = fault(lambda: service.foodSearch(devkey="not-a-key", terms="cheese"))
print(json.dumps(out))
