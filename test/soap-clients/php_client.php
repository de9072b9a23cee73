<?php
// Drives foodlookup's SOAP 1.2 interface with PHP's SoapClient, loaded from the served WSDL.
// Same environment and output as zeep_client.py.
$url = getenv('FOODLOOKUP_URL') ?: 'http://127.0.0.1:8080';
$devkey = getenv('FOODLOOKUP_DEVKEY');
$client = new SoapClient("$url/soap/1.2?wsdl", [
  'soap_version' => SOAP_1_2,
  'cache_wsdl' => WSDL_CACHE_NONE,
  'features' => SOAP_SINGLE_ELEMENT_ARRAYS,
  'exceptions' => true,
]);

function categories($result) {
  $out = [];
  foreach ($result->categories ?? [] as $c) {
    $children = [];
    foreach ($c->children ?? [] as $f) $children[] = ['id' => $f->id, 'name' => $f->name];
    $out[] = ['name' => $c->name, 'children' => $children];
  }
  return $out;
}

function food($result) {
  $f = $result->food;
  $servings = [];
  foreach ($f->servings ?? [] as $s) {
    $n = [];
    foreach (['calories', 'fat', 'carbohydrate', 'protein', 'fiber', 'sugar', 'sodium', 'calcium', 'satfat', 'cholesterol'] as $k) {
      $n[$k] = $s->nutrients->$k;
    }
    $servings[] = ['name' => $s->name, 'nutrients' => $n];
  }
  return ['id' => $f->id, 'name' => $f->name, 'servings' => $servings];
}

function fault($call) {
  try {
    $call();
    return null;
  } catch (SoapFault $e) {
    return ['code' => $e->faultcode, 'message' => $e->faultstring];
  }
}

$out = [];
$out['search'] = categories($client->foodSearch(['devkey' => $devkey, 'terms' => getenv('FOODLOOKUP_TERMS') ?: 'cheddar cheese']));
$out['emptySearch'] = categories($client->foodSearch(['devkey' => $devkey, 'terms' => '']));
$out['unmatchedSearch'] = categories($client->foodSearch(['devkey' => $devkey, 'terms' => 'xyzzyplugh']));
$out['food'] = food($client->getFood(['devkey' => $devkey, 'id' => getenv('FOODLOOKUP_FOOD_ID')]));
$out['nilFood'] = food($client->getFood(['devkey' => $devkey, 'id' => getenv('FOODLOOKUP_NIL_FOOD_ID')]));
$out['unknownId'] = fault(fn() => $client->getFood(['devkey' => $devkey, 'id' => '00000000-0000-4000-8000-999999999999']));
$out['badDevkey'] = fault(fn() => $client->foodSearch(['devkey' => 'not-a-key', 'terms' => 'cheese']));
$legacy = new SoapClient("$url/soap/1.2?wsdl", ['cache_wsdl' => WSDL_CACHE_NONE]);
$out['soap11'] = fault(fn() => $legacy->foodSearch(['devkey' => $devkey, 'terms' => 'cheese']));
echo json_encode($out, JSON_PRESERVE_ZERO_FRACTION), "\n";
